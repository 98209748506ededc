// Package instance keeps one tray app per data directory. The first
// launch listens on a unix socket named after the data directory; a second
// launch finds it there, asks it to bring its window forward, and exits.
//
// # Basics
//
// Claim returns an *Instance to the first launch, whose Serve calls a
// function for every "show" request, and ErrRunning to later launches
// (after their request was answered). On Linux the socket is in the
// abstract namespace (@dev.awp.tray.HASH), so it vanishes with the
// process and a crash leaves nothing stale behind; elsewhere it is
// DATA/tray.sock, and a socket nobody answers on is removed and claimed.
//
// # Protocol
//
// One line each way: the client sends "show\n", the instance answers
// "ok\n" after handing the request to its callback.
//
// It owns the single-instance socket; what a second launch shows is the
// app's decision, not this package's.
package instance

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// ErrRunning is returned by Claim when another instance holds the data
// directory and was asked to show its window: the caller exits 0.
var ErrRunning = errors.New("instance: the tray app is already running for this data directory")

// maxRequest bounds a request line so a stray client cannot make the
// instance buffer without end.
const maxRequest = 64

// dialTimeout bounds how long a second launch waits for the first.
const dialTimeout = 3 * time.Second

// Address returns the socket address for a data directory: an abstract
// name on Linux, DATA/tray.sock elsewhere.
func Address(dataDir string) string {
	abs, err := filepath.Abs(dataDir)
	if err != nil {
		abs = dataDir
	}
	if runtime.GOOS == "linux" {
		sum := sha256.Sum256([]byte(abs))
		return "@dev.awp.tray." + hex.EncodeToString(sum[:8])
	}
	return filepath.Join(abs, "tray.sock")
}

// Instance is the claim of the first launch.
type Instance struct {
	ln     net.Listener
	logger *slog.Logger

	closed atomic.Bool // set by the first Close

	wg sync.WaitGroup
}

// Claim becomes the instance for addr (see Address). When another process
// holds it, Claim asks that one to show its window and returns ErrRunning.
// logger may be nil.
func Claim(addr string, logger *slog.Logger) (*Instance, error) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	for attempt := 0; attempt < 2; attempt++ {
		ln, err := net.Listen("unix", addr)
		if err == nil {
			return &Instance{ln: ln, logger: logger}, nil
		}
		// Someone holds the address: ask it to show.
		if serr := AskShow(addr); serr == nil {
			return nil, ErrRunning
		} else if strings.HasPrefix(addr, "@") {
			return nil, fmt.Errorf("instance: %s is taken but does not answer: %v", addr, serr)
		}
		// A socket file nobody answers on is left from a crash: remove it
		// and try once more.
		logger.Info("removing stale instance socket", "path", addr)
		if rerr := os.Remove(addr); rerr != nil {
			return nil, fmt.Errorf("instance: listen %s: %w", addr, err)
		}
	}
	return nil, fmt.Errorf("instance: cannot claim %s", addr)
}

// AskShow asks the instance at addr to bring its window forward.
func AskShow(addr string) error {
	ctx, cancel := context.WithTimeout(context.Background(), dialTimeout)
	defer cancel()
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", addr)
	if err != nil {
		return err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(dialTimeout))
	if _, err := c.Write([]byte("show\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return fmt.Errorf("instance: no answer: %w", err)
	}
	if line != "ok\n" {
		return fmt.Errorf("instance: unexpected answer %q", line)
	}
	return nil
}

// Serve answers requests until Close, calling show for each "show". show
// runs on Serve's goroutine: a UI callback must hand over with fyne.Do.
// Serve returns nil after Close.
func (i *Instance) Serve(show func()) error {
	for {
		c, err := i.ln.Accept()
		if err != nil {
			if i.closed.Load() {
				return nil
			}
			return fmt.Errorf("instance: accept: %w", err)
		}
		i.wg.Add(1)
		go func() {
			defer i.wg.Done()
			i.handle(c, show)
		}()
	}
}

func (i *Instance) handle(c net.Conn, show func()) {
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(dialTimeout))
	line, err := bufio.NewReader(io.LimitReader(c, maxRequest)).ReadString('\n')
	if err != nil {
		return
	}
	switch line {
	case "show\n":
		i.logger.Info("another launch asked to show the window")
		show()
		_, _ = c.Write([]byte("ok\n"))
	default:
		_, _ = c.Write([]byte("unknown\n"))
	}
}

// Addr is the address the instance listens on.
func (i *Instance) Addr() string { return i.ln.Addr().String() }

// Close stops listening and waits for requests in flight. It is safe to
// call more than once.
func (i *Instance) Close() error {
	if !i.closed.CompareAndSwap(false, true) {
		return nil
	}
	err := i.ln.Close()
	i.wg.Wait()
	return err
}
