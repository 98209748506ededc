package main

// Figure 9's floor: the steps of its limit alone, done the way a timed msg
// meets them, with no node in between.

import (
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// latencyFloor is the median time, over n rounds each after gap of sleep,
// of what the limit counts done once, across two processes as the nodes
// are: this process appends 64 bytes to a file in dir and fsyncs it, sends
// 8 bytes over loopback TCP to a second process (`awpbench floor`), which
// appends and fsyncs in turn and notes the time (the one clock of this
// machine). A node's Send to its peer's event does that and its own work.
func latencyFloor(dir string, n int, gap time.Duration) (time.Duration, error) {
	exe, err := os.Executable()
	if err != nil {
		return 0, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	cmd := exec.Command(exe, "floor", ln.Addr().String(), filepath.Join(dir, "floor-b"))
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	c, err := floorAccept(ln)
	if err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return 0, err
	}
	// Closing the connection ends the second process, which removes its
	// file; then it is waited for.
	defer func() { _ = cmd.Wait() }()
	defer c.Close()
	f, err := os.Create(filepath.Join(dir, "floor-a"))
	if err != nil {
		return 0, err
	}
	defer os.Remove(f.Name())
	defer f.Close()
	buf := []byte(strings.Repeat("x", 64))
	var msg [8]byte
	return medianTimed(n, gap, func() (time.Duration, error) {
		t := time.Now()
		if err := appendSync(f, buf); err != nil {
			return 0, err
		}
		if _, err := c.Write(msg[:]); err != nil {
			return 0, err
		}
		if _, err := io.ReadFull(c, msg[:]); err != nil {
			return 0, fmt.Errorf("the second process: %w", err)
		}
		return time.Duration(int64(binary.BigEndian.Uint64(msg[:])) - t.UnixNano()), nil
	})
}

// floorAccept takes the second process's connection, giving up after a
// minute (it failed to start, or to dial).
func floorAccept(ln net.Listener) (net.Conn, error) {
	if err := ln.(*net.TCPListener).SetDeadline(time.Now().Add(time.Minute)); err != nil {
		return nil, err
	}
	return ln.Accept()
}

// floorMain is the second process of latencyFloor: `awpbench floor ADDR
// FILE` dials ADDR and, for each 8 bytes read, appends 64 bytes to FILE,
// fsyncs it and answers the time it was done (Unix ns).
func floorMain(args []string) int {
	if len(args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: awpbench floor ADDR FILE")
		return 2
	}
	if err := floorServe(args[0], args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "awpbench floor:", err)
		return 1
	}
	return 0
}

func floorServe(addr, file string) error {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return err
	}
	defer c.Close()
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	defer os.Remove(file)
	defer f.Close()
	buf := []byte(strings.Repeat("y", 64))
	var msg [8]byte
	for {
		if _, err := io.ReadFull(c, msg[:]); err != nil {
			return nil // the first process is done
		}
		if err := appendSync(f, buf); err != nil {
			return err
		}
		binary.BigEndian.PutUint64(msg[:], uint64(time.Now().UnixNano()))
		if _, err := c.Write(msg[:]); err != nil {
			return err
		}
	}
}
