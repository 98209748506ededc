package profile

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// TestCwdSwappedAfterCheck swaps the checked directory for a symlink to the
// outside between the check and the child's start: the child still runs in
// the directory that was checked and opened.
func TestCwdSwappedAfterCheck(t *testing.T) {
	e := newEnv(t)
	work := filepath.Join(e.ws, "work")
	if err := os.Mkdir(work, 0o755); err != nil {
		t.Fatal(err)
	}
	e.r.beforeStart = func() {
		if err := os.Rename(work, work+".moved"); err != nil {
			t.Error(err)
		}
		if err := os.Symlink(e.outside, work); err != nil {
			t.Error(err)
		}
	}
	before := e.snapshot()
	_, m := e.must(MimeExec, map[string]any{"cmd": "echo x > pwned; pwd -P; cat f.txt", "cwd": "work"}, false)
	// cat f.txt fails: there is no f.txt in the opened directory.
	if strings.Contains(str(m, "stdout"), secret) || m["exit"] != 1.0 {
		t.Errorf("child read outside, or cat found a file: %v", m)
	}
	if got := strings.SplitN(str(m, "stdout"), "\n", 2)[0]; got != work+".moved" {
		t.Errorf("child ran in %q, want %q (%v)", got, work+".moved", m)
	}
	if _, err := os.Stat(filepath.Join(work+".moved", "pwned")); err != nil {
		t.Errorf("child did not write in the opened directory: %v", err)
	}
	if after := e.snapshot(); after != before {
		t.Errorf("outside changed:\n%s\n---\n%s", before, after)
	}
}

// TestSwapRace swaps a directory symlink between inside and outside in a
// loop while exec (cwd), fs:read and fs:write use paths through it: each
// request either fails with "path outside workspace" or acts inside, and
// nothing outside is ever touched.
func TestSwapRace(t *testing.T) {
	e := newEnv(t)
	in := filepath.Join(e.ws, "in")
	if err := os.Mkdir(in, 0o755); err != nil {
		t.Fatal(err)
	}
	e.file(filepath.Join(in, "f.txt"), "inside")
	link := filepath.Join(e.ws, "swap")
	if err := os.Symlink("in", link); err != nil {
		t.Fatal(err)
	}
	before := e.snapshot()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var swaps atomic.Int64
	wg.Add(1)
	go func() {
		defer wg.Done()
		targets := []string{"in", "../outside"}
		tmp := filepath.Join(e.ws, "swap.tmp")
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			os.Remove(tmp)
			if err := os.Symlink(targets[i%2], tmp); err != nil {
				t.Error(err)
				return
			}
			if err := os.Rename(tmp, link); err != nil {
				t.Error(err)
				return
			}
			swaps.Add(1)
		}
	}()
	var outsideErrs, ok int
	for i := 0; i < 150; i++ {
		_, m := e.must(MimeExec, map[string]any{"cmd": "echo x > pwned; pwd -P; cat f.txt", "cwd": "swap"}, false)
		switch str(m, "error") {
		case ErrOutside:
			outsideErrs++
		case "":
			ok++
			if out := str(m, "stdout"); out != in+"\ninside" {
				t.Errorf("exec ran elsewhere: %q", out)
			}
		default:
			t.Errorf("exec: %v", m)
		}
		_, m = e.must(MimeRead, map[string]any{"path": "swap/f.txt"}, false)
		if c := str(m, "content"); c != "inside" && str(m, "error") != ErrOutside {
			t.Errorf("read: %v", m)
		}
		_, m = e.must(MimeWrite, map[string]any{"path": "swap/w.txt", "content": "w"}, false)
		if er := str(m, "error"); er != "" && er != ErrOutside {
			t.Errorf("write: %v", m)
		}
		_, m = e.must(MimeWrite, map[string]any{"path": "swap/a.txt", "content": "a", "append": true}, false)
		if er := str(m, "error"); er != "" && er != ErrOutside {
			t.Errorf("append: %v", m)
		}
	}
	close(stop)
	wg.Wait()
	t.Logf("%d swaps; exec inside %d, refused %d", swaps.Load(), ok, outsideErrs)
	if after := e.snapshot(); after != before {
		t.Errorf("outside changed:\n%s\n---\n%s", before, after)
	}
}
