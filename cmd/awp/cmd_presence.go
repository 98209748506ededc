package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"text/tabwriter"

	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/localapi"
	"github.com/awp-tray/awp-tray/peer/presence"
)

func runPresence(e *env, args []string) error {
	fs := newFlags("presence")
	asJSON := fs.jsonFlag(false)
	pos, err := fs.parse(args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		if pos[0] != "detail" {
			return usagef("unexpected argument %q", pos[0])
		}
		return presenceDetail(e, fs, pos[1:], *asJSON)
	}
	c, err := e.client(fs)
	if err != nil {
		return err
	}
	ps, err := c.Presence(e.ctx)
	if err != nil {
		return e.wrap("presence", err)
	}
	if *asJSON {
		// Each doc byte for byte as received: encoding/json would compact it.
		_, err := e.stdout.Write(append(localapi.AppendPresence(nil, ps), '\n'))
		return err
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ORIGIN\tNAME\tHARNESS\tMODEL\tHOST\tHOPS\tRECEIVED")
	for _, p := range ps {
		var d presence.Doc
		_ = json.Unmarshal(p.Doc, &d)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%s\n", key.ShortText(d.Origin), dash(d.Name), dash(d.Harness),
			dash(d.Model), dash(d.Host), p.Hops, p.Received)
	}
	return tw.Flush()
}

// presenceDetail is `awp presence detail [full|peers|none]`: without an
// argument it prints the detail published, with one it sets it.
func presenceDetail(e *env, fs *flagSet, pos []string, asJSON bool) error {
	if len(pos) > 1 {
		return usagef("unexpected argument %q", pos[1])
	}
	if len(pos) == 1 {
		switch pos[0] {
		case presence.DetailFull, presence.DetailPeers, presence.DetailNone:
		default:
			return usagef("detail %q: want full, peers or none", pos[0])
		}
	}
	c, err := e.client(fs)
	if err != nil {
		return err
	}
	if len(pos) == 1 {
		if err := c.SetPresenceDetail(e.ctx, pos[0]); err != nil {
			return e.wrap("presence", err)
		}
		if asJSON {
			return writeJSON(e.stdout, map[string]string{"detail": pos[0]})
		}
		return nil
	}
	d, err := c.PresenceDetail(e.ctx)
	if err != nil {
		return e.wrap("presence", err)
	}
	return e.answer(asJSON, map[string]string{"detail": d}, d)
}

func runMirror(e *env, args []string) error {
	fs := newFlags("mirror")
	clearHosts := fs.Bool("clear", false, "hosts: mirror to no host")
	fs.jsonFlag(true)
	pos, err := fs.parse(args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usagef("missing hosts, on or off")
	}
	switch pos[0] {
	case "hosts":
		if *clearHosts && len(pos) > 1 {
			return usagef("--clear takes no KEY")
		}
		c, err := e.client(fs)
		if err != nil {
			return err
		}
		keys, err := resolveKeys(e.ctx, c, "KEY", pos[1:])
		if err != nil {
			return err
		}
		var hosts []key.PublicKey
		if len(keys) > 0 || *clearHosts {
			hosts, err = c.SetMirrorHosts(e.ctx, append([]key.PublicKey{}, keys...))
		} else {
			hosts, err = c.MirrorHosts(e.ctx)
		}
		if err != nil {
			return e.wrap("mirror", err)
		}
		return writeJSON(e.stdout, hosts)
	case "on", "off":
		if *clearHosts {
			return usagef("--clear goes with hosts")
		}
		if err := nArgs(pos[1:], 1, "TH"); err != nil {
			return err
		}
		if err := checkTh("TH", pos[1]); err != nil {
			return err
		}
		c, err := e.client(fs)
		if err != nil {
			return err
		}
		return e.wrap("mirror", c.SetMirror(e.ctx, pos[1], pos[0] == "on"))
	}
	return usagef("%q: want hosts, on or off", pos[0])
}

func runPrivate(e *env, args []string) error {
	fs := newFlags("private")
	from := fs.String("from", "", "the sharer (a key, a key prefix or a peer's name) of a thread mirrored to this peer (default: a thread of mine)")
	fs.jsonFlag(true)
	c, th, sharer, err := e.threadArgs(fs, args, from)
	if err != nil {
		return err
	}
	res, err := c.SetPrivate(e.ctx, th, sharer)
	if err != nil {
		return e.wrap("private", err)
	}
	return writeJSON(e.stdout, res)
}

func runInvite(e *env, args []string) error {
	fs := newFlags("invite")
	asJSON := fs.jsonFlag(false)
	inv, err := askPeer(e, fs, args, "invite", (*localapi.Client).Invite)
	if err != nil {
		return err
	}
	return e.answer(*asJSON, map[string]string{"invite": inv}, inv)
}

func runAdd(e *env, args []string) error {
	fs := newFlags("add")
	d, err := fs.parseDial(args, "INVITE", "give up waiting for the connection after this long (0: wait as long as the peer does)")
	if err != nil {
		return err
	}
	card, err := peer.ParseInvite(d.arg)
	if err != nil {
		return usagef("%v", err)
	}
	k, timedOut, err := e.dial(fs, d, (*localapi.Client).AddInvite)
	if err != nil {
		if errors.Is(err, localapi.ErrNotRunning) {
			return err
		}
		if timedOut {
			// The peer records the invite before it dials.
			return fmt.Errorf("could not connect to %s within %v; the peer is recorded and will be dialed", card.Key, formatDuration(d.timeout))
		}
		if !k.IsZero() {
			return fmt.Errorf("could not connect to %s: %v; the peer is recorded and will be dialed", k.String(), err)
		}
		return e.wrap("add", err)
	}
	return e.printKey(k, d.asJSON)
}
