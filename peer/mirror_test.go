package peer

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/awp-tray/awp-tray/internal/testsync"
	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/wire"
)

func TestMirrorAndPrivate(t *testing.T) {
	host := newTestNode(t, "host")
	sharer := newTestNode(t, "sharer", func(c *Config) { c.MirrorTo = []key.PublicKey{host.Key()} })
	party := newTestNode(t, "party")
	connect(t, sharer, host)
	connect(t, party, sharer)

	r := sendText(t, party, sharer.Key(), "", "hello sharer")
	testsync.Eventually(t, "sharer got it", func() bool { l, _ := sharer.Lines(r.Th, key.PublicKey{}); return len(l) == 1 })
	sendText(t, sharer, party.Key(), r.Th, "hello party")
	testsync.Eventually(t, "host has both mirrored lines", func() bool {
		ls, err := host.Lines(r.Th, sharer.Key())
		return err == nil && len(ls) == 2
	})
	ls, _ := host.Lines(r.Th, sharer.Key())
	if ls[0].Dir != "in" || ls[0].From != party.Key() || ls[0].MirroredFrom != sharer.Key() {
		t.Fatalf("first mirrored line %+v", ls[0])
	}
	if ls[1].Dir != "out" || ls[1].From != sharer.Key() {
		t.Fatalf("second mirrored line %+v", ls[1])
	}
	var m wire.Msg
	if err := json.Unmarshal(ls[0].Line, &m); err != nil || m.DecodeParts()[0].Text != "hello sharer" {
		t.Fatalf("mirrored line is not the original: %s", ls[0].Line)
	}
	ths, _ := host.Threads()
	if len(ths) != 1 || ths[0].MirroredFrom != sharer.Key() || ths[0].Peer != party.Key() {
		t.Fatalf("host threads %+v", ths)
	}
	// The host is never mirrored a thread it is a party in.
	r2 := sendText(t, host, sharer.Key(), "", "to the sharer directly")
	testsync.Eventually(t, "sharer got it", func() bool { l, _ := sharer.Lines(r2.Th, key.PublicKey{}); return len(l) == 1 })
	if _, err := host.Lines(r2.Th, sharer.Key()); err == nil {
		t.Fatal("host got a mirror of its own thread")
	}

	// The party asks for privacy: the host's copy is withdrawn, and nothing
	// of that thread is mirrored again, also after restarts.
	if _, err := party.SetPrivate(r.Th, key.PublicKey{}); err != nil {
		t.Fatal(err)
	}
	testsync.Eventually(t, "withdrawn at the host", func() bool {
		ti, err := host.Thread(r.Th, sharer.Key())
		return err == nil && ti.Withdrawn
	})
	if ls, _ := host.Lines(r.Th, sharer.Key()); len(ls) != 0 {
		t.Fatalf("withdrawn thread still has %d lines", len(ls))
	}
	sharer.restart()
	host.restart()
	connect(t, sharer, host)
	for i := 0; i < 3; i++ {
		sendText(t, party, sharer.Key(), r.Th, fmt.Sprint("secret ", i))
		sendText(t, sharer, party.Key(), r.Th, fmt.Sprint("reply ", i))
	}
	testsync.Eventually(t, "sharer has the private lines", func() bool { l, _ := sharer.Lines(r.Th, key.PublicKey{}); return len(l) >= 9 })
	// A line in another thread still mirrors; once it has arrived, the
	// private thread's lines would have too.
	r3 := sendText(t, party, sharer.Key(), "", "public again")
	testsync.Eventually(t, "other thread mirrored", func() bool { l, _ := host.Lines(r3.Th, sharer.Key()); return len(l) == 1 })
	time.Sleep(100 * time.Millisecond)
	if ls, _ := host.Lines(r.Th, sharer.Key()); len(ls) != 0 {
		t.Fatalf("private thread reached the host again: %d lines", len(ls))
	}

	// The sharer's own toggle: mirroring off withdraws, and stops later lines.
	if err := sharer.SetMirror(r3.Th, false); err != nil {
		t.Fatal(err)
	}
	testsync.Eventually(t, "toggle withdrew", func() bool { ti, err := host.Thread(r3.Th, sharer.Key()); return err == nil && ti.Withdrawn })
	sendText(t, party, sharer.Key(), r3.Th, "after toggle")
	time.Sleep(200 * time.Millisecond)
	if ls, _ := host.Lines(r3.Th, sharer.Key()); len(ls) != 0 {
		t.Fatal("line mirrored after the toggle went off")
	}
	// Mirror hosts change at run time.
	if err := sharer.SetMirrorHosts(nil); err != nil || len(sharer.MirrorHosts()) != 0 {
		t.Fatalf("clear hosts: %v %v", err, sharer.MirrorHosts())
	}
}

func TestMirrorNotToHostWithoutCap(t *testing.T) {
	host := newTestNode(t, "host", func(c *Config) { c.Caps = []string{"chat", "blob"} })
	sharer := newTestNode(t, "sharer", func(c *Config) { c.MirrorTo = []key.PublicKey{host.Key()} })
	party := newTestNode(t, "party")
	connect(t, sharer, host)
	connect(t, party, sharer)
	r := sendText(t, party, sharer.Key(), "", "x")
	testsync.Eventually(t, "mirror line dropped from the outbox", func() bool {
		l, _ := sharer.Lines(r.Th, key.PublicKey{})
		return len(l) == 1 && sharer.outboxLen(host.Key().String()) == 0
	})
	if ths, _ := host.Threads(); len(ths) != 0 {
		t.Fatalf("host without the mirror cap got %+v", ths)
	}
}

func TestGrantRequest(t *testing.T) {
	desk := newTestNode(t, "desk")
	agent := newTestNode(t, "agent")
	connect(t, agent, desk)
	ev, cancel := desk.Subscribe(16)
	defer cancel()
	go func() {
		for e := range ev {
			if e.Type == EventApproval && e.Approval.Kind == ApprovalGrantRequest {
				desk.Decide(e.Approval.ID, Decision{Allow: true, For: time.Hour})
				return
			}
		}
	}()
	data, _ := json.Marshal(GrantRequest{Caps: []string{"exec"}, TTL: 600, Reason: "run tests"})
	part, _ := wire.DataPart(MimeGrantRequest, data)
	r, err := agent.Send(context.Background(), SendRequest{To: desk.Key(), Parts: []json.RawMessage{part}})
	if err != nil {
		t.Fatal(err)
	}
	testsync.Eventually(t, "agent stored the grant answer", func() bool {
		gs, _ := agent.Grants()
		return len(gs) == 1
	})
	ls, _ := agent.Lines(r.Th, key.PublicKey{})
	var m wire.Msg
	json.Unmarshal(ls[len(ls)-1].Line, &m)
	if m.Re != r.ID || m.DecodeParts()[0].Mime != MimeGrant {
		t.Fatalf("answer %s", ls[len(ls)-1].Line)
	}
}

func (n *Node) outboxLen(k string) int {
	var c int
	n.db.View(func(tx *storeTx) error {
		pk, _ := parseKey(k)
		c = tx.OutboxLen(pk)
		return nil
	})
	return c
}
