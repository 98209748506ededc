//go:build linux || freebsd || openbsd || netbsd || dragonfly

package main

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// probeTimeout bounds dialing the display: a local server accepts at
// once, and a remote one (ssh -X) within a round trip.
const probeTimeout = 2 * time.Second

// probeDisplay checks that the display the UI process will open answers:
// the X server of $DISPLAY, else the Wayland compositor of
// $WAYLAND_DISPLAY. It dials the server's socket and says nothing of
// authorization (Xauthority), which only opening a window tells.
func probeDisplay() error {
	if d := os.Getenv("DISPLAY"); d != "" {
		return probeX11(d)
	}
	if w := os.Getenv("WAYLAND_DISPLAY"); w != "" {
		p := w
		if !filepath.IsAbs(p) {
			p = filepath.Join(os.Getenv("XDG_RUNTIME_DIR"), w)
		}
		return dial("unix", p)
	}
	return errors.New("no display")
}

// probeX11 dials the X server of display "[host]:N[.screen]".
func probeX11(display string) error {
	i := strings.LastIndexByte(display, ':')
	if i < 0 {
		return nil // not a form this knows: let opening a window tell
	}
	host, num := display[:i], display[i+1:]
	if j := strings.IndexByte(num, '.'); j >= 0 {
		num = num[:j]
	}
	n, err := strconv.Atoi(num)
	if err != nil || n < 0 {
		return nil
	}
	if host == "" || host == "unix" {
		sock := "/tmp/.X11-unix/X" + strconv.Itoa(n)
		// Linux servers listen in the abstract namespace too.
		if dial("unix", "@"+sock) == nil {
			return nil
		}
		return dial("unix", sock)
	}
	return dial("tcp", net.JoinHostPort(host, strconv.Itoa(6000+n)))
}

func dial(network, addr string) error {
	c, err := net.DialTimeout(network, addr, probeTimeout)
	if err != nil {
		return fmt.Errorf("nothing answers at %s", strings.TrimPrefix(addr, "@"))
	}
	return c.Close()
}
