package uilink

import (
	"errors"
	"log/slog"
	"os"
	"os/exec"
	"sync"
	"time"
)

// Bounds of the Launcher.
const (
	// MaxStarts UI processes may be started within StartWindow; past that
	// the commands waiting are dropped (and logged) instead of starting
	// one more: a UI that dies at once (a broken display, a crash) must
	// not be restarted in a loop.
	MaxStarts   = 5
	StartWindow = time.Minute
	// QuitWait is how long Close waits for the UI to quit before it kills it.
	QuitWait = 5 * time.Second
	// MaxPending bounds commands waiting for an ack: clicks while the UI
	// starts. Past it the oldest is dropped (a person does not click 64
	// times in the second a UI takes to start; a loop might).
	MaxPending = 64
)

// Launcher starts the UI process on demand and carries messages to it. Set
// its fields, then call Send, Update and Close; it is safe for concurrent
// use.
type Launcher struct {
	// Command returns the command of a new UI process (the binary, with
	// --ui). The Launcher adds the line (fd 3).
	Command func() *exec.Cmd
	// Init is sent first to every UI process.
	Init Init
	// State returns what a new UI process needs after Init: the pause and
	// the boot state. Called without the Launcher's lock.
	State func() []Msg
	// OnMsg receives what the UI says, acks excepted, on the line's reader
	// goroutine.
	OnMsg func(Msg)
	// OnExit is called when a UI process has ended, with how (nil: exit
	// status 0), on the line's reader goroutine, before any restart.
	OnExit func(err error)
	// Logger receives the UI's comings and goings; nil is silent.
	Logger *slog.Logger

	mu sync.Mutex
	// mu guards:
	cur     *proc
	pending []Msg // commands sent and not acked, in order
	seq     uint64
	starts  []time.Time // recent starts, for MaxStarts
	closed  bool
}

// proc is one UI process.
type proc struct {
	cmd  *exec.Cmd
	conn *Conn
	done chan struct{} // closed when the process has been waited for
}

func (l *Launcher) log() *slog.Logger {
	if l.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return l.Logger
}

// Send delivers a command to the UI, starting a UI process when none runs.
// The command is sent again to a new process if this one ends before it
// acked it. m.Seq is set here.
func (l *Launcher) Send(m Msg) {
	state := l.state()
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return
	}
	l.seq++
	m.Seq = l.seq
	if len(l.pending) >= MaxPending {
		l.log().Warn("too many commands waiting for the UI; dropping the oldest", "op", l.pending[0].Op)
		l.pending = l.pending[1:]
	}
	l.pending = append(l.pending, m)
	if l.cur == nil {
		l.startLocked(state)
		return
	}
	if err := l.cur.conn.Send(m); err != nil {
		// The process is on its way out: its reader restarts one and
		// sends what is pending.
		l.log().Debug("send to the UI", "op", m.Op, "err", err)
	}
}

// Update sends a state message (a pause, the boot state) to the UI process
// if one runs; a new one gets the state from State.
func (l *Launcher) Update(m Msg) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cur != nil && !l.closed {
		if err := l.cur.conn.Send(m); err != nil {
			l.log().Debug("update the UI", "op", m.Op, "err", err)
		}
	}
}

// Running reports whether a UI process runs.
func (l *Launcher) Running() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.cur != nil
}

func (l *Launcher) state() []Msg {
	if l.State == nil {
		return nil
	}
	return l.State()
}

// startLocked starts a UI process and sends it Init, state and every
// pending command, unless too many started lately.
func (l *Launcher) startLocked(state []Msg) {
	now := time.Now()
	recent := l.starts[:0]
	for _, t := range l.starts {
		if now.Sub(t) < StartWindow {
			recent = append(recent, t)
		}
	}
	l.starts = recent
	if len(l.starts) >= MaxStarts {
		l.log().Error("the UI process keeps ending; not starting it again for now",
			"starts", len(l.starts), "within", StartWindow.String(), "dropped", len(l.pending))
		l.pending = nil
		return
	}
	l.starts = append(l.starts, now)
	cmd := l.Command()
	conn, started, err := attach(cmd)
	if err != nil {
		l.log().Error("start the UI process", "err", err)
		l.pending = nil
		return
	}
	err = cmd.Start()
	started()
	if err != nil {
		conn.Close()
		l.log().Error("start the UI process", "err", err)
		l.pending = nil
		return
	}
	p := &proc{cmd: cmd, conn: conn, done: make(chan struct{})}
	l.cur = p
	l.log().Info("UI process started", "pid", cmd.Process.Pid, "commands", len(l.pending))
	init := l.Init
	msgs := append([]Msg{{Op: OpInit, Init: &init}}, state...)
	for _, m := range append(msgs, l.pending...) {
		if err := conn.Send(m); err != nil {
			break // the reader sees the end
		}
	}
	go l.read(p)
}

// read handles what p says until its line ends, then waits for it and
// starts another when commands are waiting.
func (l *Launcher) read(p *proc) {
	for {
		m, err := p.conn.Recv()
		if err != nil {
			break
		}
		if m.Op == OpAck {
			l.acked(m.Seq)
			continue
		}
		if l.OnMsg != nil {
			l.OnMsg(m)
		}
	}
	p.conn.Close()
	err := p.cmd.Wait()
	// The process is gone before anyone hears that it ended: Running
	// says false from OnExit on.
	l.mu.Lock()
	if l.cur == p {
		l.cur = nil
	}
	l.mu.Unlock()
	close(p.done)
	l.log().Info("UI process ended", "pid", p.cmd.Process.Pid, "err", err)
	if l.OnExit != nil {
		l.OnExit(err)
	}
	state := l.state()
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.closed && l.cur == nil && len(l.pending) > 0 {
		l.startLocked(state)
	}
}

// acked drops command seq from the pending list.
func (l *Launcher) acked(seq uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, m := range l.pending {
		if m.Seq == seq {
			l.pending = append(l.pending[:i], l.pending[i+1:]...)
			return
		}
	}
}

// Close asks the UI process to quit, waits up to QuitWait for it and kills
// it past that; no process is started after Close. It is safe to call
// more than once.
func (l *Launcher) Close() error {
	l.mu.Lock()
	l.closed = true
	p := l.cur
	l.mu.Unlock()
	if p == nil {
		return nil
	}
	_ = p.conn.Send(Msg{Op: OpQuit})
	t := time.NewTimer(QuitWait)
	defer t.Stop()
	select {
	case <-p.done:
		return nil
	case <-t.C:
	}
	l.log().Warn("the UI process did not quit; killing it", "pid", p.cmd.Process.Pid)
	if err := p.cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return err
	}
	<-p.done
	return nil
}
