package mcpserver

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/awp-tray/awp-tray/internal/testsync"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// progressSession is a session whose progress notifications go to the
// returned channel.
func progressSession(t *testing.T, n *node) (*session, <-chan *mcp.ProgressNotificationParams) {
	ch := make(chan *mcp.ProgressNotificationParams, 64)
	s := connect(t, n.dir, &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
		select {
		case ch <- r.Params:
		default:
		}
	}}, Options{}, "")
	return s, ch
}

// waitCall calls awp_wait with a progress token on its own goroutine.
func waitCall(ctx context.Context, s *session, a args) <-chan struct {
	res *mcp.CallToolResult
	err error
} {
	done := make(chan struct {
		res *mcp.CallToolResult
		err error
	}, 1)
	go func() {
		p := &mcp.CallToolParams{Name: "awp_wait", Arguments: a}
		p.SetProgressToken("wait-1")
		res, err := s.CallTool(ctx, p)
		done <- struct {
			res *mcp.CallToolResult
			err error
		}{res, err}
	}()
	return done
}

// TestWaitReleasedByLine: awp_wait blocks, sends progress while it does,
// and returns the line bob sends, marked read.
func TestWaitReleasedByLine(t *testing.T) {
	a, b := pair(t)
	sa, prog := progressSession(t, a)
	sb := open(t, b)
	done := waitCall(context.Background(), sa, args{"timeout_s": 30})

	// A progress notification says the call is waiting (and that progress works).
	select {
	case p := <-prog:
		if p.ProgressToken != "wait-1" || p.Total != 30 || p.Progress <= 0 || !strings.Contains(p.Message, "waiting") {
			t.Fatalf("progress = %+v", p)
		}
	case r := <-done:
		t.Fatalf("awp_wait returned before any line: %+v %v", r.res, r.err)
	case <-time.After(20 * time.Second):
		t.Fatal("no progress notification")
	}
	sent, _ := callOK[SendOut](t, sb, "awp_send", args{"to": "alice", "subject": "hello", "text": "wake up"})
	var r struct {
		res *mcp.CallToolResult
		err error
	}
	select {
	case r = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("awp_wait not released by the line")
	}
	if r.err != nil || r.res.IsError {
		t.Fatalf("awp_wait: %v %s", r.err, textOf(r.res))
	}
	var out WaitOut
	decode(t, r.res, &out)
	if out.TimedOut || len(out.Threads) != 1 || len(out.Threads[0].Lines) != 1 || out.Threads[0].Lines[0].ID != sent.ID ||
		out.Threads[0].Lines[0].Text != "wake up" || out.Threads[0].Th != sent.Th {
		t.Fatalf("awp_wait = %+v", out)
	}
	if !strings.Contains(textOf(r.res), "wake up") {
		t.Errorf("text = %q", textOf(r.res))
	}
	// Handed out and marked read: the inbox is empty.
	if in, _ := callOK[InboxOut](t, sa, "awp_inbox", args{"peek": true}); len(in.Threads) != 0 {
		t.Fatalf("inbox after wait = %+v", in)
	}
	// An unread line returns at once.
	callOK[SendOut](t, sb, "awp_send", args{"to": "alice", "th": sent.Th, "text": "again"})
	testsync.Eventually(t, "the second line at alice", func() bool {
		in, _ := callOK[InboxOut](t, sa, "awp_inbox", args{"peek": true})
		return len(in.Threads) == 1
	})
	start := time.Now()
	out2, _ := callOK[WaitOut](t, sa, "awp_wait", args{"timeout_s": 600})
	if len(out2.Threads) != 1 || out2.Threads[0].Lines[0].Text != "again" || time.Since(start) > 10*time.Second {
		t.Fatalf("wait with an unread line = %+v", out2)
	}
}

// TestWaitCanceled: canceling the call ends the wait on the server, and a
// line that arrives afterwards stays unread.
func TestWaitCanceled(t *testing.T) {
	a, b := pair(t)
	sa, prog := progressSession(t, a)
	sb := open(t, b)
	ctx, cancel := context.WithCancel(context.Background())
	done := waitCall(ctx, sa, args{"timeout_s": 600})
	select {
	case <-prog:
	case <-time.After(20 * time.Second):
		t.Fatal("no progress notification")
	}
	if n := sa.s.waiting.Load(); n != 1 {
		t.Fatalf("%d waits running, want 1", n)
	}
	cancel()
	select {
	case r := <-done:
		if !errors.Is(r.err, context.Canceled) {
			t.Fatalf("canceled awp_wait returned %v, %+v", r.err, r.res)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("canceled awp_wait did not return")
	}
	testsync.Eventually(t, "the server's wait to end", func() bool { return sa.s.waiting.Load() == 0 })
	callOK[SendOut](t, sb, "awp_send", args{"to": "alice", "subject": "late", "text": "after the cancel"})
	testsync.Eventually(t, "the line at alice, unread", func() bool {
		in, _ := callOK[InboxOut](t, sa, "awp_inbox", args{"peek": true})
		return len(in.Threads) == 1 && in.Threads[0].Lines[0].Text == "after the cancel"
	})
}

func TestWaitTimeout(t *testing.T) {
	a := startNode(t, "alice")
	s := open(t, a)
	out, txt := callOK[WaitOut](t, s, "awp_wait", args{"timeout_s": 1})
	if !out.TimedOut || len(out.Threads) != 0 || out.WaitedMS < 900 || !strings.Contains(txt, "No line arrived") {
		t.Fatalf("awp_wait = %+v %q", out, txt)
	}
	// Out of range timeouts are refused by the schema, as tool errors.
	for _, bad := range []int{0, MaxWaitSeconds + 1} {
		if msg := callErr(t, s, "awp_wait", args{"timeout_s": bad}); !strings.Contains(msg, "timeout_s") {
			t.Errorf("timeout_s %d: %q", bad, msg)
		}
	}
}

// TestWaitFilters: a wait for one thread (or one peer) returns only its
// lines and leaves the others unread.
func TestWaitFilters(t *testing.T) {
	a, b := pair(t)
	c := startNode(t, "carol")
	link(t, c, a)
	sa, sb, sc := open(t, a), open(t, b), open(t, c)
	one, _ := callOK[SendOut](t, sb, "awp_send", args{"to": "alice", "subject": "one", "text": "in one"})
	testsync.Eventually(t, "thread one at alice", func() bool {
		in, _ := callOK[InboxOut](t, sa, "awp_inbox", args{"peek": true})
		return len(in.Threads) == 1
	})
	two, _ := callOK[SendOut](t, sa, "awp_send", args{"to": "bob", "subject": "two", "text": "start two"})

	done := waitCall(context.Background(), sa, args{"th": two.Th, "timeout_s": 60})
	testsync.Eventually(t, "the wait to block", func() bool { return sa.s.waiting.Load() == 1 })
	// carol's line and bob's in thread one do not release it.
	callOK[SendOut](t, sc, "awp_send", args{"to": "alice", "subject": "three", "text": "from carol"})
	callOK[SendOut](t, sb, "awp_send", args{"to": "alice", "th": one.Th, "text": "more in one"})
	testsync.Eventually(t, "both lines at alice", func() bool {
		in, _ := callOK[InboxOut](t, sa, "awp_inbox", args{"peek": true})
		return len(in.Threads) == 2 && len(in.Threads[0].Lines)+len(in.Threads[1].Lines) == 3
	})
	select {
	case r := <-done:
		t.Fatalf("wait for %s returned on another thread's line: %s", two.Th, textOf(r.res))
	default:
	}
	callOK[SendOut](t, sb, "awp_send", args{"to": "alice", "th": two.Th, "text": "answer in two"})
	r := <-done
	var out WaitOut
	decode(t, r.res, &out)
	if len(out.Threads) != 1 || out.Threads[0].Th != two.Th || out.Threads[0].Lines[0].Text != "answer in two" {
		t.Fatalf("filtered wait = %+v", out)
	}
	// A wait from carol returns hers only, at once; bob's two in thread one stay.
	fromCarol, _ := callOK[WaitOut](t, sa, "awp_wait", args{"from": "carol", "timeout_s": 5})
	if len(fromCarol.Threads) != 1 || fromCarol.Threads[0].PeerName != "carol" {
		t.Fatalf("wait from carol = %+v", fromCarol)
	}
	in, _ := callOK[InboxOut](t, sa, "awp_inbox", nil)
	if len(in.Threads) != 1 || in.Threads[0].Th != one.Th || len(in.Threads[0].Lines) != 2 {
		t.Fatalf("left unread = %+v", in)
	}
}

// TestWaitRightAfterSend: a wait that starts while the line it waits for
// is being stored (bob calls awp_wait just after alice's awp_send returns)
// gets it.
func TestWaitRightAfterSend(t *testing.T) {
	a, b := pair(t)
	sa, sb := open(t, a), open(t, b)
	for i := 0; i < 30; i++ {
		sent, _ := callOK[SendOut](t, sa, "awp_send", args{"to": "bob", "subject": "round", "text": itoa(i)})
		out, _ := callOK[WaitOut](t, sb, "awp_wait", args{"timeout_s": 20})
		if out.TimedOut || len(out.Threads) != 1 || out.Threads[0].Th != sent.Th {
			t.Fatalf("round %d: %+v", i, out)
		}
	}
}

// TestWaitBounded: past MaxWaits waits at once, another is refused with a
// tool error, and the ones waiting still get their line.
func TestWaitBounded(t *testing.T) {
	a, b := pair(t)
	sa, sb := open(t, a), open(t, b)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var dones []<-chan struct {
		res *mcp.CallToolResult
		err error
	}
	for range MaxWaits {
		dones = append(dones, waitCall(ctx, sa, args{"timeout_s": 60, "peek": true}))
	}
	testsync.Eventually(t, "every wait running", func() bool { return sa.s.waiting.Load() == MaxWaits })
	if msg := callErr(t, sa, "awp_wait", args{"timeout_s": 1}); !strings.Contains(msg, "already waiting") {
		t.Fatalf("wait past the bound: %q", msg)
	}
	callOK[SendOut](t, sb, "awp_send", args{"to": "alice", "subject": "all", "text": "for everyone"})
	for i, d := range dones {
		r := <-d
		var out WaitOut
		if r.err != nil {
			t.Fatalf("wait %d: %v", i, r.err)
		}
		decode(t, r.res, &out)
		if len(out.Threads) != 1 {
			t.Fatalf("wait %d = %+v", i, out)
		}
	}
}
