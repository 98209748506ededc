package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/awp-tray/awp-tray/peer/localapi"
	"github.com/awp-tray/awp-tray/peer/localapi/localapitest"
)

// Helpers shared by the crash, mirror and WireGuard end-to-end tests: real
// `awp run` processes in their own process groups that a test can kill -9
// and restart on the same data directory, and CLI calls with deadlines so
// nothing hangs on a loaded machine. Deadlines here only bound hangs; no
// test asserts on timing.

const (
	// daemonReadyWait bounds how long `awp run` may take to log ready.
	daemonReadyWait = 2 * time.Minute
	// cliWait bounds one CLI call.
	cliWait = 2 * time.Minute
	// settleWait bounds waiting for delivery, acks or reconnects.
	settleWait = 5 * time.Minute
)

// daemon is one `awp run --keyring file` process that may be killed and
// restarted on the same data directory.
type daemon struct {
	t    *testing.T
	name string
	dir  string
	args []string // run flags after --data/--keyring/--name

	mu      sync.Mutex // guards the fields below
	log     bytes.Buffer
	cmd     *exec.Cmd
	exited  chan struct{} // closed when the current process has been waited for
	key     string
	listen  []string
	starts  int
	cleaned bool
}

// newDaemon prepares a daemon on a fresh short data directory (unix socket
// paths are limited in length) and starts it.
func newDaemon(t *testing.T, name string, args ...string) *daemon {
	t.Helper()
	d := &daemon{t: t, name: name, dir: localapitest.ShortTempDir(t), args: args}
	// Registered after ShortTempDir's cleanup, so it runs first: the
	// process is gone before its directory is removed.
	t.Cleanup(d.cleanup)
	d.start()
	return d
}

// start runs `awp run` and returns once it logged ready.
func (d *daemon) start() {
	d.t.Helper()
	// A fixed port just freed by a kill can be taken for a moment by an
	// outgoing connection (a redial that the kernel gave that same port
	// for a self-connect): try again rather than fail the test on that.
	for try := 1; ; try++ {
		err := d.startOnce()
		if err == nil {
			return
		}
		if try < 10 && strings.Contains(err.Error(), "address already in use") {
			d.t.Logf("%s: %v; retrying", d.name, err)
			time.Sleep(time.Duration(try) * 200 * time.Millisecond)
			continue
		}
		d.t.Fatal(err)
	}
}

// startOnce runs `awp run` once and waits for ready; an early exit is an
// error that quotes the log.
func (d *daemon) startOnce() error {
	t := d.t
	t.Helper()
	d.mu.Lock()
	logStart := d.log.Len()
	d.mu.Unlock()
	args := append([]string{"run", "--keyring", "file", "--data", d.dir, "--name", d.name}, d.args...)
	cmd := exec.Command(awpBinary(t), args...)
	cmd.Env = append(os.Environ(), "AWP_DATA=", "AWP_KEYRING=")
	ownGroup(cmd)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	ready := make(chan struct{})
	d.mu.Lock()
	d.cmd, d.exited, d.starts = cmd, exited, d.starts+1
	d.key, d.listen = "", nil
	gen := d.starts
	d.mu.Unlock()
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		isReady := false
		for sc.Scan() {
			line := sc.Text()
			d.mu.Lock()
			fmt.Fprintf(&d.log, "[%s#%d] %s\n", d.name, gen, line)
			if a, ok := logField(line, "listening", "addr"); ok {
				d.listen = append(d.listen, a)
			}
			if k, ok := logField(line, "ready", "key"); ok && !isReady {
				d.key, isReady = k, true
				close(ready)
			}
			d.mu.Unlock()
		}
		cmd.Wait()
		close(exited)
	}()
	select {
	case <-ready:
		return nil
	case <-exited:
		d.mu.Lock()
		tail := d.log.String()[logStart:]
		d.mu.Unlock()
		return fmt.Errorf("%s: awp run exited before ready: %v\n%s", d.name, cmd.ProcessState, tail)
	case <-time.After(daemonReadyWait):
		d.kill9()
		return fmt.Errorf("%s: awp run not ready after %v\n%s", d.name, daemonReadyWait, d.logs())
	}
}

// Key returns the daemon's key (stable across restarts).
func (d *daemon) Key() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.key
}

// Listen returns the current process's bound listen addresses.
func (d *daemon) Listen() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.listen...)
}

func (d *daemon) logs() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.log.String()
}

// running reports whether the current process has not exited.
func (d *daemon) running() bool {
	d.mu.Lock()
	ex := d.exited
	d.mu.Unlock()
	if ex == nil {
		return false
	}
	select {
	case <-ex:
		return false
	default:
		return true
	}
}

// kill9 sends SIGKILL to the daemon's process group and waits for it.
func (d *daemon) kill9() {
	d.mu.Lock()
	cmd, ex := d.cmd, d.exited
	d.mu.Unlock()
	if cmd == nil || cmd.Process == nil {
		return
	}
	signalGroup(cmd, syscall.SIGKILL)
	<-ex
}

// stop interrupts the daemon (a clean shutdown), falling back to SIGKILL.
func (d *daemon) stop() {
	d.mu.Lock()
	cmd, ex := d.cmd, d.exited
	d.mu.Unlock()
	if cmd == nil || cmd.Process == nil || !d.running() {
		return
	}
	signalGroup(cmd, syscall.SIGINT)
	select {
	case <-ex:
	case <-time.After(time.Minute):
		d.kill9()
	}
}

// restart starts the daemon again on the same data directory with args
// (nil: the previous ones).
func (d *daemon) restart(args ...string) {
	d.t.Helper()
	if d.running() {
		d.t.Fatalf("%s: restart while running", d.name)
	}
	if args != nil {
		d.args = args
	}
	d.start()
}

func (d *daemon) cleanup() {
	d.mu.Lock()
	done := d.cleaned
	d.cleaned = true
	d.mu.Unlock()
	if done {
		return
	}
	d.stop()
	if d.t.Failed() {
		d.t.Logf("logs of %s:\n%s", d.name, d.logs())
	}
}

// client returns a local API client for the daemon's control socket.
func (d *daemon) client() *localapi.Client {
	return localapi.NewClient(localapi.SocketPath(d.dir))
}

// awpExec runs the awp binary with args under ctx (bounded by cliWait) and
// returns its stdout, stderr and exit code (-1 when it did not exit by
// itself). It never fails the test, so worker goroutines may use it.
func awpExec(ctx context.Context, args ...string) (stdout, stderr string, code int, err error) {
	bin, err := bins.Lookup("awp")
	if err != nil {
		return "", "", -1, err
	}
	ctx, cancel := context.WithTimeout(ctx, cliWait)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), "AWP_DATA=", "AWP_KEYRING=")
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err = cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return o.String(), e.String(), 0, nil
	case errors.As(err, &ee) && ctx.Err() == nil:
		return o.String(), e.String(), ee.ExitCode(), nil
	default:
		return o.String(), e.String(), -1, err
	}
}

// awpOK runs the awp binary and fails the test unless it exits 0.
func awpOK(t *testing.T, args ...string) string {
	t.Helper()
	awpBinary(t)
	out, errs, code, err := awpExec(context.Background(), args...)
	if err != nil || code != 0 {
		t.Fatalf("awp %s: exit %d (%v): %s", strings.Join(args, " "), code, err, errs)
	}
	return out
}

// awpJSON runs the awp binary and decodes its stdout.
func awpJSON[T any](t *testing.T, args ...string) T {
	t.Helper()
	out := awpOK(t, args...)
	var v T
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("awp %s: decode %q: %v", strings.Join(args, " "), out, err)
	}
	return v
}

// hasCommand reports whether `awp help` lists the command name.
func hasCommand(t *testing.T, name string) bool {
	t.Helper()
	for _, l := range strings.Split(awpOK(t, "help"), "\n") {
		if f := strings.Fields(l); len(f) > 0 && f[0] == name && strings.HasPrefix(l, "  ") {
			return true
		}
	}
	return false
}

// eventually polls cond until it reports done, failing the test with the
// last status after settleWait. The wait only bounds a hang.
func eventually(t *testing.T, what string, cond func() (done bool, status string)) {
	t.Helper()
	deadline := time.Now().Add(settleWait)
	delay := 100 * time.Millisecond
	for {
		done, status := cond()
		if done {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: still not done after %v: %s", what, settleWait, status)
		}
		time.Sleep(delay)
		delay = min(delay*2, time.Second)
	}
}

// shownLine is one entry of `awp show --json`.
type shownLine struct {
	Dir          string `json:"dir"`
	From         string `json:"from"`
	Acked        bool   `json:"acked"`
	MirroredFrom string `json:"mirrored_from"`
	Line         struct {
		T     string `json:"t"`
		ID    string `json:"id"`
		Th    string `json:"th"`
		Parts []struct {
			K    string `json:"k"`
			Text string `json:"text"`
		} `json:"parts"`
	} `json:"line"`
}

// text returns the line's first text part.
func (l shownLine) text() string {
	for _, p := range l.Line.Parts {
		if p.K == "text" {
			return p.Text
		}
	}
	return ""
}

// showLines runs `awp show --json TH` (from: a thread mirrored from that
// sharer, or "") on the daemon.
func showLines(t *testing.T, d *daemon, th, from string) []shownLine {
	t.Helper()
	args := []string{"show", "--data", d.dir, "--json"}
	if from != "" {
		args = append(args, "--from", from)
	}
	return awpJSON[[]shownLine](t, append(args, th)...)
}

// textPartJSON is a wire text part.
func textPartJSON(s string) json.RawMessage {
	b, _ := json.Marshal(map[string]string{"k": "text", "text": s})
	return b
}
