//go:build unix

package profile

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"

	"github.com/awp-tray/awp-tray/internal/testsync"
	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/key/keytest"
)

func TestConcurrencyLimits(t *testing.T) {
	e := newEnv(t)
	e.r.MaxPerPeer, e.r.MaxTotal = 2, 3
	block := json.RawMessage(`{"cmd":"while [ ! -e go ]; do sleep 0.01; done; echo done"}`)
	quick := json.RawMessage(`{"path":"inside.txt"}`)
	var wg sync.WaitGroup
	results := make(chan string, 3)
	start := func(from key.PublicKey) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := e.r.Handle(context.Background(), from, MimeExec, block, false)
			if err != nil {
				results <- err.Error()
				return
			}
			var m ExecResult
			json.Unmarshal(res.Data, &m)
			results <- m.Stdout
		}()
	}
	start(peerA)
	start(peerA)
	testsync.Eventually(t, "two requests of A running", func() bool { return e.r.runningFor(peerA) == 2 })

	if _, err := e.r.Handle(context.Background(), peerA, MimeRead, quick, false); !errors.Is(err, ErrBusy) {
		t.Errorf("third request of A: %v, want ErrBusy", err)
	}
	if _, err := e.r.Handle(context.Background(), peerB, MimeRead, quick, false); err != nil {
		t.Errorf("B while A is busy: %v", err)
	}
	start(peerB)
	testsync.Eventually(t, "B running", func() bool { return e.r.runningFor(peerB) == 1 })
	peerC := keytest.SeededPublic(3)
	if _, err := e.r.Handle(context.Background(), peerC, MimeRead, quick, false); !errors.Is(err, ErrBusy) {
		t.Errorf("C over MaxTotal: %v, want ErrBusy", err)
	}

	e.file(filepath.Join(e.ws, "go"), "")
	wg.Wait()
	close(results)
	for r := range results {
		if r != "done\n" {
			t.Errorf("blocked request: %q", r)
		}
	}
	if _, err := e.r.Handle(context.Background(), peerA, MimeRead, quick, false); err != nil {
		t.Errorf("A after release: %v", err)
	}
	if n := e.r.runningFor(peerA); n != 0 {
		t.Errorf("A still counted: %d", n)
	}
}

// TestExecCanceled: ending the caller's context kills the command.
func TestExecCanceled(t *testing.T) {
	e := newEnv(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan ExecResult, 1)
	go func() {
		res, err := e.r.Handle(ctx, peerA, MimeExec, json.RawMessage(`{"cmd":"echo $$ > pid; sleep 1000"}`), false)
		if err != nil {
			t.Error(err)
		}
		var m ExecResult
		json.Unmarshal(res.Data, &m)
		done <- m
	}()
	testsync.Eventually(t, "pid file", func() bool { b, _ := os.ReadFile(filepath.Join(e.ws, "pid")); return len(b) > 0 })
	cancel()
	m := <-done
	if m.Error != ErrCanceled || m.Exit != -1 {
		t.Errorf("result %+v", m)
	}
}

func TestReadFIFO(t *testing.T) {
	e := newEnv(t)
	if err := syscall.Mkfifo(filepath.Join(e.ws, "fifo"), 0o644); err != nil {
		t.Skip("mkfifo:", err)
	}
	_, m := e.must(MimeRead, map[string]any{"path": "fifo"}, false)
	if str(m, "error") != "not a regular file" {
		t.Errorf("read fifo: %v", m)
	}
	_, m = e.must(MimeWrite, map[string]any{"path": "fifo", "content": "x", "append": true}, false)
	if str(m, "error") == "" {
		t.Errorf("append to fifo: %v", m)
	}
	_, m = e.must(MimeWrite, map[string]any{"path": "fifo", "content": "x"}, false)
	if str(m, "error") != "not a regular file" {
		t.Errorf("replace fifo: %v", m)
	}
}
