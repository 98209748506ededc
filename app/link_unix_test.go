//go:build unix

package app

import (
	"context"
	"net"
	"os"
	"syscall"
	"testing"
	"time"

	"fyne.io/fyne/v2"

	"github.com/awp-tray/awp-tray/app/uilink"
	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/key"
)

// ServeLink carries out the tray's commands in order and acks each once
// done; when the node is ready it attaches it before the next command; a
// thread window in front is reported; the line's end quits the UI.
func TestServeLink(t *testing.T) {
	f := newFakeNode()
	f.threads = []peer.ThreadInfo{{Th: "thr_l", Peer: bobKey, Subject: "linked"}}
	f.pending = []peer.ApprovalRequest{{ID: "ap_a", From: aliceKey, Caps: []string{"exec"}},
		{ID: "ap_b", From: bobKey, Caps: []string{"fs:read"}}}
	mine, theirs := socketPair(t)
	trayEnd := uilink.NewConn(theirs)
	var dialed int
	a, _ := newTestApp(t, nil, func(o *Options) {
		o.Tray = LinkTray{C: uilink.NewConn(mine)}
		o.Dial = func(context.Context) (Backend, error) { dialed++; return f, nil }
	})
	done := make(chan struct{})
	go func() { a.ServeLink(uilink.NewConn(mine)); close(done) }()

	send := func(m uilink.Msg) {
		t.Helper()
		if err := trayEnd.Send(m); err != nil {
			t.Fatal(err)
		}
	}
	recv := func() uilink.Msg {
		t.Helper()
		m, err := trayEnd.Recv()
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	send(uilink.Msg{Op: uilink.OpBoot, State: uilink.BootReady})
	send(uilink.Msg{Op: uilink.OpThread, Seq: 1, Th: "thr_l"})
	// The thread window comes up in front: the tray hears it, then the ack.
	if m := recv(); m.Op != uilink.OpFocus || m.Th != "thr_l" {
		t.Fatalf("got %+v, want the focus of thr_l", m)
	}
	if m := recv(); m.Op != uilink.OpAck || m.Seq != 1 {
		t.Fatalf("got %+v, want the ack of 1", m)
	}
	if dialed != 1 || a.backend() == nil {
		t.Fatalf("dialed %d times, attached %v", dialed, a.backend() != nil)
	}
	// (a.Wait would wait for the event loop: it runs until the node ends.)
	eventually(t, "the thread window with the node's subject", func() bool {
		tw := a.threads[threadKey{"thr_l", key.PublicKey{}}]
		return tw != nil && tw.info.Subject == "linked"
	})
	send(uilink.Msg{Op: uilink.OpApprovals, Seq: 2, ID: "ap_b"})
	if m := recv(); m.Op != uilink.OpAck || m.Seq != 2 {
		t.Fatalf("got %+v, want the ack of 2", m)
	}
	eventually(t, "Approvals at ap_b", func() bool { return a.approvals != nil && a.approvals.cur == "ap_b" })
	// Closing the thread window tells the tray nothing is in front.
	fyne.DoAndWait(func() { a.threads[threadKey{"thr_l", key.PublicKey{}}].closeAsked() })
	if m := recv(); m.Op != uilink.OpFocus || m.Th != "" {
		t.Fatalf("got %+v, want no focus", m)
	}
	trayEnd.Close()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("ServeLink did not return when the line ended")
	}
	if !a.quitRequested() {
		t.Error("the UI did not quit when the tray went away")
	}
}

// socketPair is a connected pair of unix sockets: unlike net.Pipe, a write
// does not wait for the other end to read.
func socketPair(t *testing.T) (net.Conn, net.Conn) {
	t.Helper()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	var cs [2]net.Conn
	for i, fd := range fds {
		f := os.NewFile(uintptr(fd), "pair")
		c, err := net.FileConn(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		cs[i] = c
		t.Cleanup(func() { c.Close() })
	}
	return cs[0], cs[1]
}
