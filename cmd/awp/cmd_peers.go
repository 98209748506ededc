package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/localapi"
	"github.com/awp-tray/awp-tray/peer/transport"
)

// defaultConnectTimeout bounds `awp connect` so a script never hangs on an
// address that never answers.
const defaultConnectTimeout = time.Minute

func runStatus(e *env, args []string) error {
	fs := newFlags("status")
	fs.jsonFlag(true)
	id, err := askPeer(e, fs, args, "status", (*localapi.Client).Identity)
	if err != nil {
		return err
	}
	return writeJSON(e.stdout, id)
}

func runConnect(e *env, args []string) error {
	fs := newFlags("connect")
	d, err := fs.parseDial(args, "ADDR", "give up after this long (0: wait as long as the peer does)")
	if err != nil {
		return err
	}
	if _, err := transport.ParseAddr(d.arg); err != nil {
		return usagef("ADDR: %v", err)
	}
	k, timedOut, err := e.dial(fs, d, (*localapi.Client).Connect)
	if err != nil {
		if errors.Is(err, localapi.ErrNotRunning) || errors.Is(err, peer.ErrSelfAddress) || e.ctx.Err() != nil {
			return e.wrap("connect", err) // no dialer stays behind
		}
		if timedOut {
			err = fmt.Errorf("%s: no handshake within %v", d.arg, formatDuration(d.timeout))
		}
		// The dialer the peer started stays: it keeps trying.
		return fmt.Errorf("%w; the peer keeps redialing it (backing off up to 30s; `awp peers` shows when it is up)", err)
	}
	return e.printKey(k, d.asJSON)
}

func runPeers(e *env, args []string) error {
	fetch := func(c *localapi.Client, ctx context.Context) ([]peer.PeerInfo, error) {
		ps, err := c.Peers(ctx)
		for i := range ps {
			if ps[i].Listen == nil {
				ps[i].Listen = []string{}
			}
		}
		return ps, err
	}
	return runList(e, args, "peers", fetch, "KEY\tNAME\tUP\tTRUSTED\tLISTEN", func(p peer.PeerInfo) []string {
		return []string{p.Key.String(), dash(p.Name), strconv.FormatBool(p.Up), strconv.FormatBool(p.Trusted), dash(strings.Join(p.Listen, " "))}
	})
}

func runTrust(e *env, name string, args []string, trusted bool) error {
	fs := newFlags(name)
	pos, err := fs.parse(args)
	if err != nil {
		return err
	}
	if err := nArgs(pos, 1, "KEY"); err != nil {
		return err
	}
	c, err := e.client(fs)
	if err != nil {
		return err
	}
	k, err := resolveKey(e.ctx, c, "KEY", pos[0])
	if err != nil {
		return err
	}
	return e.wrap(name, c.Trust(e.ctx, k, trusted))
}
