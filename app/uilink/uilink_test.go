package uilink

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/awp-tray/awp-tray/app/menu"
)

// The tests start the test binary itself as the UI process: with
// UILINK_HELPER set, TestMain runs helper instead of the tests.
func TestMain(m *testing.M) {
	if mode := os.Getenv("UILINK_HELPER"); mode != "" {
		os.Exit(helper(mode, os.Getenv("UILINK_MARK")))
	}
	os.Exit(m.Run())
}

// helper is a UI process: it echoes every message it gets back as a
// "focus" whose Th is "op:th" (so the test sees what arrived, in order)
// and acks commands, except as mode says:
//
//	ack         ack everything
//	crash-once  exit 3 at the first command unless the file mark exists
//	            (then create it), so the next process acks
//	crash       exit 3 at every command
//	stubborn    ignore quit
func helper(mode, mark string) int {
	c, err := Open()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	for {
		m, err := c.Recv()
		if err != nil {
			return 0
		}
		_ = c.Send(Msg{Op: OpFocus, Th: m.Op + ":" + m.Th})
		if m.Op == OpQuit && mode != "stubborn" {
			return 0
		}
		if !m.IsCommand() {
			continue
		}
		switch mode {
		case "crash":
			return 3
		case "crash-once":
			if _, err := os.Stat(mark); err != nil {
				os.WriteFile(mark, nil, 0o600)
				return 3
			}
		}
		_ = c.Send(Msg{Op: OpAck, Seq: m.Seq})
	}
}

// recorder collects what the helpers echo and how they end.
type recorder struct {
	mu    sync.Mutex
	seen  []string
	exits []error
	ch    chan struct{}
}

func newRecorder() *recorder { return &recorder{ch: make(chan struct{}, 100)} }

func (r *recorder) msg(m Msg) {
	r.mu.Lock()
	r.seen = append(r.seen, m.Th)
	r.mu.Unlock()
	r.ch <- struct{}{}
}

func (r *recorder) exit(err error) {
	r.mu.Lock()
	r.exits = append(r.exits, err)
	r.mu.Unlock()
	r.ch <- struct{}{}
}

// until waits for cond; the bound only turns a hang into a failure.
func (r *recorder) until(t *testing.T, what string, cond func(seen []string, exits []error) bool) {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		r.mu.Lock()
		ok := cond(append([]string(nil), r.seen...), append([]error(nil), r.exits...))
		seen := strings.Join(r.seen, " ")
		r.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-r.ch:
		case <-deadline:
			t.Fatalf("gave up waiting for %s; seen: %s", what, seen)
		}
	}
}

func launcher(t *testing.T, mode string) (*Launcher, *recorder) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	mark := filepath.Join(t.TempDir(), "mark")
	r := newRecorder()
	l := &Launcher{
		Command: func() *exec.Cmd {
			cmd := exec.Command(exe, "-test.run=^$")
			cmd.Env = append(os.Environ(), "UILINK_HELPER="+mode, "UILINK_MARK="+mark)
			cmd.Stderr = os.Stderr
			return cmd
		},
		Init:   Init{DataDir: "/data"},
		State:  func() []Msg { return []Msg{{Op: OpPause, Pause: &menu.Pause{Forever: true}}} },
		OnMsg:  r.msg,
		OnExit: r.exit,
	}
	t.Cleanup(func() { l.Close() })
	return l, r
}

func count(ss []string, s string) int {
	n := 0
	for _, x := range ss {
		if x == s {
			n++
		}
	}
	return n
}

// A command starts a UI process, which gets init and the state first; a
// second command goes to the same process; Close makes it quit.
func TestLauncherStartsOnDemand(t *testing.T) {
	l, r := launcher(t, "ack")
	if l.Running() {
		t.Fatal("a UI process runs before any command")
	}
	l.Update(Msg{Op: OpPause, Pause: &menu.Pause{}}) // no UI: nothing starts
	if l.Running() {
		t.Fatal("an update started a UI process")
	}
	l.Send(Msg{Op: OpThread, Th: "thr_1"})
	l.Send(Msg{Op: OpShow})
	r.until(t, "both commands", func(seen []string, _ []error) bool { return count(seen, "show:") == 1 })
	r.mu.Lock()
	got := strings.Join(r.seen, " ")
	r.mu.Unlock()
	if got != "init: pause: thread:thr_1 show:" {
		t.Errorf("the UI got %q", got)
	}
	l.Update(Msg{Op: OpBoot, State: BootReady})
	r.until(t, "the update", func(seen []string, _ []error) bool { return count(seen, "boot:") == 1 })
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	r.until(t, "the UI's exit", func(seen []string, exits []error) bool { return count(seen, "quit:") == 1 && len(exits) == 1 })
	if r.exits[0] != nil {
		t.Errorf("the UI ended with %v", r.exits[0])
	}
	l.Send(Msg{Op: OpShow})
	if l.Running() {
		t.Error("a UI process started after Close")
	}
}

// A UI process that ends before it acked a command (it was on its way out
// after its last window closed, or it crashed) does not lose it: a new one
// gets it.
func TestLauncherResendsUnacked(t *testing.T) {
	l, r := launcher(t, "crash-once")
	l.Send(Msg{Op: OpThread, Th: "thr_9"})
	r.until(t, "the command carried out by a second process", func(seen []string, exits []error) bool {
		return count(seen, "thread:thr_9") == 2 && count(seen, "init:") == 2
	})
	r.mu.Lock()
	var exit *exec.ExitError
	if len(r.exits) < 1 || !errors.As(r.exits[0], &exit) || exit.ExitCode() != 3 {
		t.Errorf("first exit = %v", r.exits)
	}
	r.mu.Unlock()
	if !l.Running() {
		t.Error("no UI after the resend")
	}
}

// A UI that dies at every command is started MaxStarts times, then the
// command is dropped instead of looping.
func TestLauncherStartBudget(t *testing.T) {
	l, r := launcher(t, "crash")
	l.Send(Msg{Op: OpShow})
	r.until(t, "MaxStarts exits", func(_ []string, exits []error) bool { return len(exits) == MaxStarts })
	time.Sleep(200 * time.Millisecond) // a further start would show as an init
	r.mu.Lock()
	inits := count(r.seen, "init:")
	r.mu.Unlock()
	if inits != MaxStarts || l.Running() {
		t.Errorf("%d starts (running %v), want %d and then none", inits, l.Running(), MaxStarts)
	}
}

// Close kills a UI that does not quit.
func TestLauncherCloseKills(t *testing.T) {
	if testing.Short() {
		t.Skip("waits QuitWait")
	}
	l, r := launcher(t, "stubborn")
	l.Send(Msg{Op: OpShow})
	r.until(t, "the command", func(seen []string, _ []error) bool { return count(seen, "show:") == 1 })
	start := time.Now()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if l.Running() && time.Since(start) < QuitWait {
		t.Error("Close returned before the UI ended")
	}
	r.until(t, "the kill", func(_ []string, exits []error) bool { return len(exits) == 1 && exits[0] != nil })
}

// Recv refuses a line over MaxLine and reads messages split over writes.
func TestConnLines(t *testing.T) {
	a, b := net.Pipe()
	ca, cb := NewConn(a), NewConn(b)
	go func() {
		cb.Send(Msg{Op: OpNotify, Title: "t", Text: strings.Repeat("x", 1000)})
		b.Write([]byte(`{"op":"sh`))
		b.Write([]byte("ow\"}\n"))
		b.Write([]byte(`{"op":"notify","text":"` + strings.Repeat("y", MaxLine) + "\"}\n"))
	}()
	m, err := ca.Recv()
	if err != nil || m.Op != OpNotify || len(m.Text) != 1000 {
		t.Fatalf("first = %+v, %v", m.Op, err)
	}
	if m, err := ca.Recv(); err != nil || m.Op != OpShow {
		t.Fatalf("split = %+v, %v", m, err)
	}
	if _, err := ca.Recv(); !errors.Is(err, ErrTooLong) {
		t.Fatalf("long line: %v", err)
	}
	b.Close()
	a.Close()
	if _, err := ca.Recv(); err == nil {
		t.Fatal("Recv after close")
	}
}

// Open fails clearly in a process the tray did not start.
func TestOpenWithoutLine(t *testing.T) {
	if _, err := Open(); !errors.Is(err, ErrNoLine) {
		t.Skipf("fd 3 is open in this test process (%v)", err)
	}
}
