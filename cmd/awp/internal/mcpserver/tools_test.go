package mcpserver

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/awp-tray/awp-tray/internal/testsync"
	"github.com/awp-tray/awp-tray/peer"
)

// wantTools are the tools issue 19 names, exactly.
var wantTools = []string{"awp_whoami", "awp_peers", "awp_send", "awp_inbox", "awp_wait", "awp_show", "awp_request", "awp_presence"}

func TestListTools(t *testing.T) {
	a := startNode(t, "alice")
	s := open(t, a)
	res, err := s.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
		in, _ := json.Marshal(tl.InputSchema)
		out, _ := json.Marshal(tl.OutputSchema)
		if !strings.Contains(string(in), `"type":"object"`) || !strings.Contains(string(out), `"type":"object"`) {
			t.Errorf("%s: input schema %s, output schema %s: want objects", tl.Name, in, out)
		}
		if tl.Description == "" {
			t.Errorf("%s: no description", tl.Name)
		}
	}
	slices.Sort(names)
	want := slices.Clone(wantTools)
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Fatalf("tools %v, want %v", names, want)
	}
	if caps := s.InitializeResult().Capabilities; caps.Resources == nil || !caps.Resources.Subscribe {
		t.Errorf("resources capability %+v: want subscribe", caps.Resources)
	}
}

func TestWhoamiPeersPresence(t *testing.T) {
	a, b := pair(t, func(c *peer.Config) { c.Harness, c.Model = "codex", "gpt-test" })
	s := open(t, a)

	me, txt := callOK[WhoamiOut](t, s, "awp_whoami", nil)
	if me.Key != a.Key().String() || me.Name != "alice" || len(me.Listen) != 1 || !strings.HasPrefix(me.Invite, "awp:") {
		t.Fatalf("whoami = %+v", me)
	}
	if !strings.Contains(txt, a.Key().String()) {
		t.Errorf("whoami text %q lacks the key", txt)
	}

	// bob publishes presence once he sees alice; alice's peers show it.
	var ps PeersOut
	testsync.Eventually(t, "bob's presence in awp_peers", func() bool {
		ps, _ = callOK[PeersOut](t, s, "awp_peers", nil)
		return len(ps.Peers) == 1 && ps.Peers[0].Presence != nil
	})
	p := ps.Peers[0]
	if p.Key != b.Key().String() || p.Name != "bob" || !p.Up || p.Presence.Harness != "codex" || p.Presence.Model != "gpt-test" {
		t.Fatalf("peer = %+v, presence %+v", p, p.Presence)
	}
	up, _ := callOK[PeersOut](t, s, "awp_peers", args{"up": true})
	if len(up.Peers) != 1 {
		t.Errorf("up peers = %+v", up)
	}

	// bob's first document may predate his session with alice: wait for
	// the one that lists her.
	var pr PresenceOut
	testsync.Eventually(t, "bob's document listing alice", func() bool {
		pr, txt = callOK[PresenceOut](t, s, "awp_presence", nil)
		return len(pr.Entries) == 1 && len(pr.Entries[0].Peers) == 1
	})
	if e := pr.Entries[0]; e.Origin != b.Key().String() || e.Harness != "codex" || e.Hops != 1 || e.Peers[0].Key != a.Key().String() || pr.Publishing == "" {
		t.Fatalf("presence = %+v", pr)
	}
	if !strings.Contains(txt, "codex") {
		t.Errorf("presence text %q", txt)
	}
}

func TestSendInboxShow(t *testing.T) {
	a, b := pair(t)
	sa, sb := open(t, a), open(t, b)
	file := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(file, []byte("blob bytes\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// bob is named by his name; the subject defaults to the text's first line.
	sent, _ := callOK[SendOut](t, sa, "awp_send", args{"to": "bob", "text": "please review\nthe patch",
		"code": "package x", "lang": "go", "data": map[string]any{"n": 1}, "files": []string{file}})
	if sent.To != b.Key().String() || !strings.HasPrefix(sent.Th, "thr_") || sent.ID == "" {
		t.Fatalf("send = %+v", sent)
	}
	// A key prefix works as well, in the same thread.
	prefix := strings.TrimPrefix(b.Key().String(), "ed25519:")[:10]
	second, _ := callOK[SendOut](t, sa, "awp_send", args{"to": prefix, "th": sent.Th, "re": sent.ID, "text": "ping"})
	if second.Th != sent.Th {
		t.Fatalf("second send went to %s", second.Th)
	}

	var in InboxOut
	testsync.Eventually(t, "both lines at bob", func() bool {
		in, _ = callOK[InboxOut](t, sb, "awp_inbox", args{"peek": true})
		return len(in.Threads) == 1 && len(in.Threads[0].Lines) == 2
	})
	if !in.Peeked {
		t.Error("peek answer not marked peeked")
	}
	th := in.Threads[0]
	if th.Th != sent.Th || th.Peer != a.Key().String() || th.PeerName != "alice" || th.Subject != "please review" {
		t.Fatalf("thread = %+v", th)
	}
	l := th.Lines[0]
	if l.ID != sent.ID || l.Dir != "in" || l.Type != "msg" || l.Text != "please review\nthe patch" || l.FromName != "alice" || l.Seq != 1 {
		t.Fatalf("line = %+v", l)
	}
	if len(l.Parts) != 3 || l.Parts[0].K != "code" || l.Parts[0].Lang != "go" || l.Parts[1].K != "data" ||
		string(l.Parts[1].Data) != `{"n":1}` || l.Parts[2].K != "blob" || l.Parts[2].Name != "notes.txt" || l.Parts[2].Size != 11 {
		t.Fatalf("parts = %+v", l.Parts)
	}
	if th.Lines[1].Re != sent.ID || th.Lines[1].Text != "ping" {
		t.Fatalf("second line = %+v", th.Lines[1])
	}

	// Without peek the lines are handed out once.
	got, txt := callOK[InboxOut](t, sb, "awp_inbox", nil)
	if len(got.Threads) != 1 || len(got.Threads[0].Lines) != 2 || !strings.Contains(txt, "please review") {
		t.Fatalf("inbox = %+v", got)
	}
	if again, txt := callOK[InboxOut](t, sb, "awp_inbox", nil); len(again.Threads) != 0 || txt != "Nothing unread." {
		t.Fatalf("inbox after reading = %+v %q", again, txt)
	}

	// awp_show: the newest lines, after a seq, a limit.
	sh, _ := callOK[ShowOut](t, sb, "awp_show", args{"th": sent.Th})
	if sh.Total != 2 || len(sh.Lines) != 2 || sh.Subject != "please review" || sh.Unread != 0 || sh.PeerName != "alice" {
		t.Fatalf("show = %+v", sh)
	}
	sh, _ = callOK[ShowOut](t, sb, "awp_show", args{"th": sent.Th, "limit": 1})
	if len(sh.Lines) != 1 || sh.Lines[0].Seq != 2 || sh.Earlier != 1 || sh.Later != 0 {
		t.Fatalf("show limit 1 = %+v", sh)
	}
	sh, _ = callOK[ShowOut](t, sb, "awp_show", args{"th": sent.Th, "after": 1})
	if len(sh.Lines) != 1 || sh.Lines[0].Seq != 2 || sh.Earlier != 1 {
		t.Fatalf("show after 1 = %+v", sh)
	}
	// alice's own view: her lines are out, acked once bob stored them.
	testsync.Eventually(t, "alice's lines acked", func() bool {
		sh, _ = callOK[ShowOut](t, sa, "awp_show", args{"th": sent.Th})
		return len(sh.Lines) == 2 && sh.Lines[0].Dir == "out" && sh.Lines[1].Acked && sh.Lines[0].FromName == "alice"
	})
}

func TestShowCutsLargeParts(t *testing.T) {
	a, b := pair(t)
	sa, sb := open(t, a), open(t, b)
	big := strings.Repeat("é", MaxPartText) // 2 bytes a character: twice the bound
	sent, _ := callOK[SendOut](t, sa, "awp_send", args{"to": b.Key().String(), "subject": "big", "text": big,
		"data": map[string]string{"blob": strings.Repeat("x", MaxPartData)}})
	testsync.Eventually(t, "the big line at bob", func() bool {
		sh, ok := try[ShowOut](t, sb, "awp_show", args{"th": sent.Th})
		return ok && len(sh.Lines) == 1
	})
	sh, txt := callOK[ShowOut](t, sb, "awp_show", args{"th": sent.Th})
	l := sh.Lines[0]
	if !l.Cut || len(l.Text) > MaxPartText || len(l.Text) < MaxPartText-1 || !strings.HasPrefix(big, l.Text) {
		t.Fatalf("cut text: %d bytes, cut %v", len(l.Text), l.Cut)
	}
	if d := l.Parts[0]; !d.Cut || d.Data != nil || d.Size <= MaxPartData {
		t.Fatalf("cut data part = %+v", d)
	}
	if !strings.Contains(txt, "full") {
		t.Errorf("text does not say how to read it whole")
	}
	sh, _ = callOK[ShowOut](t, sb, "awp_show", args{"th": sent.Th, "full": true})
	if l := sh.Lines[0]; l.Cut || l.Text != big || l.Parts[0].Data == nil {
		t.Fatalf("full line cut: %v, %d bytes", l.Cut, len(l.Text))
	}
}

// TestInboxHandsOutEveryLineOnce sends lines while the reader marks and
// reads: each is handed out exactly once (none is marked read unseen).
func TestInboxHandsOutEveryLineOnce(t *testing.T) {
	a, b := pair(t)
	sa, sb := open(t, a), open(t, b)
	const n = 60
	first, _ := callOK[SendOut](t, sa, "awp_send", args{"to": "bob", "subject": "flood", "text": "0"})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 1; i < n; i++ {
			res, err := sa.CallTool(context.Background(), &mcp.CallToolParams{Name: "awp_send",
				Arguments: args{"to": "bob", "th": first.Th, "text": strings.Repeat("x", i%7) + "#" + itoa(i)}})
			if err != nil || res.IsError {
				t.Errorf("send %d: %v %v", i, err, res)
				return
			}
		}
	}()
	seen := map[string]int{}
	collect := func() {
		in, _ := callOK[InboxOut](t, sb, "awp_inbox", nil)
		for _, th := range in.Threads {
			for _, l := range th.Lines {
				seen[l.ID]++
			}
		}
	}
	for running := true; running; {
		select {
		case <-done:
			running = false
		default:
			collect()
		}
	}
	testsync.Eventually(t, "every line stored at bob", func() bool {
		sh, ok := try[ShowOut](t, sb, "awp_show", args{"th": first.Th, "limit": 1})
		return ok && sh.Total == n
	})
	collect()
	if len(seen) != n {
		t.Errorf("%d of %d lines handed out", len(seen), n)
	}
	for id, c := range seen {
		if c != 1 {
			t.Errorf("line %s handed out %d times", id, c)
		}
	}
	if in, _ := callOK[InboxOut](t, sb, "awp_inbox", nil); len(in.Threads) != 0 {
		t.Fatalf("lines left unread after all were handed out: %+v", in)
	}
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }
