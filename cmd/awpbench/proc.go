package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// proc is one child process (the hidden "node" subcommand).
type proc struct {
	name   string
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	msgs   chan childMsg
	stderr lockedBuffer
	exited chan struct{}
	err    error          // cmd.Wait's, once exited is closed
	ready  childMsg       // a receiver's ready line (pair)
	onDone func(childMsg) // sees the done line (-memprofile: prints where the memory went)
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.b.Len() > 64<<10 {
		return len(p), nil
	}
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.TrimSpace(l.b.String())
}

// startChild runs self with the "node" subcommand and args.
func startChild(self, name string, args ...string) (*proc, error) {
	p := &proc{name: name, msgs: make(chan childMsg, 64), exited: make(chan struct{})}
	p.cmd = exec.Command(self, append([]string{"node"}, args...)...)
	p.cmd.Env = os.Environ()
	p.cmd.Stderr = &p.stderr
	p.cmd.SysProcAttr = childProcAttr()
	var err error
	if p.stdin, err = p.cmd.StdinPipe(); err != nil {
		return nil, err
	}
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := p.cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			var m childMsg
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil || m.Event == "" {
				continue // not ours
			}
			p.msgs <- m
		}
		close(p.msgs)
		p.err = p.cmd.Wait()
		close(p.exited)
	}()
	return p, nil
}

// expect waits for the child's next line of type event (skipping others).
func (p *proc) expect(event string, timeout time.Duration) (childMsg, error) {
	t := time.NewTimer(timeout)
	defer t.Stop()
	for {
		select {
		case m, ok := <-p.msgs:
			if !ok {
				<-p.exited
				return childMsg{}, p.fail(fmt.Sprintf("exited (%v) waiting for %s", p.err, event))
			}
			if m.Event == "error" {
				return childMsg{}, p.fail(m.Err)
			}
			if m.Event == event {
				return m, nil
			}
		case <-t.C:
			return childMsg{}, p.fail(fmt.Sprintf("no %s after %s", event, timeout))
		}
	}
}

func (p *proc) fail(msg string) error {
	if s := p.stderr.String(); s != "" {
		msg += "\n" + s
	}
	return fmt.Errorf("%s: %s", p.name, msg)
}

// command writes one line to the child's stdin.
func (p *proc) command(line string) error {
	_, err := io.WriteString(p.stdin, line+"\n")
	return err
}

// stop tells the child to stop and returns its final report.
func (p *proc) stop(timeout time.Duration) (childMsg, error) {
	_ = p.command("stop")
	_ = p.stdin.Close()
	return p.finish(timeout)
}

// stopPair stops a sender, then its receiver, and returns their final
// reports (the receiver is left running when the sender fails to stop).
func stopPair(send, recv *proc) (sd, rd childMsg, err error) {
	if sd, err = send.stop(time.Minute); err != nil {
		return sd, rd, err
	}
	rd, err = recv.stop(time.Minute)
	return sd, rd, err
}

// finish waits for the child's done line and its exit.
func (p *proc) finish(timeout time.Duration) (childMsg, error) {
	m, err := p.expect("done", timeout)
	if err != nil {
		p.kill()
		return m, err
	}
	if p.onDone != nil {
		p.onDone(m)
	}
	select {
	case <-p.exited:
	case <-time.After(timeout):
		p.kill()
		return m, p.fail("did not exit")
	}
	if p.err != nil {
		return m, p.fail(p.err.Error())
	}
	return m, nil
}

// kill ends the child if it still runs.
func (p *proc) kill() {
	select {
	case <-p.exited:
		return
	default:
	}
	_ = p.cmd.Process.Kill()
	select {
	case <-p.exited:
	case <-time.After(5 * time.Second):
	}
}
