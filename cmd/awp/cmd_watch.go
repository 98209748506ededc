package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/key"
)

func runWatch(e *env, args []string) error {
	fs := newFlags("watch")
	asJSON := fs.Bool("json", false, "print each event as one JSON object per line")
	c, err := e.clientNoArgs(fs, args)
	if err != nil {
		return err
	}
	w, err := c.Watch(e.ctx)
	if err != nil {
		return e.wrap("watch", err)
	}
	defer w.Close()
	var names peerNames
	if !*asJSON {
		names = c.PeerNames(e.ctx)
	}
	for {
		raw, err := w.NextRaw()
		switch {
		case err == nil:
		case errors.Is(err, context.Canceled) && e.ctx.Err() != nil:
			return nil // interrupted: the normal end
		case errors.Is(err, io.EOF):
			return errors.New("the peer stopped")
		default:
			return err
		}
		if *asJSON {
			// As the peer sent it: one compact object, then a newline.
			if _, err := fmt.Fprintf(e.stdout, "%s\n", raw); err != nil {
				return fmt.Errorf("write output: %w", err)
			}
			continue
		}
		var ev peer.Event
		if err := jsonUnmarshal(raw, &ev); err != nil {
			return err
		}
		names.fill(&ev)
		if _, err := fmt.Fprintln(e.stdout, describe(ev, names)); err != nil {
			return fmt.Errorf("write output: %w", err)
		}
	}
}

// maxWatchNames bounds the names awp watch learns from events: a watch
// left running on a node that many throwaway keys reach must not grow
// without end. Past it, peers it has not named are shown by short key.
const maxWatchNames = 4096

// peerNames are the names awp watch shows peers by: the peer list's when it
// starts, and the names events carry after that (peer_up, lines received,
// presence).
type peerNames map[key.PublicKey]string

// fill names ev's peer where the event does not (a line queued for a peer
// that is not connected), and learns the name where it does.
func (ns peerNames) fill(ev *peer.Event) {
	if ev.Peer.IsZero() {
		return
	}
	switch known, ok := ns[ev.Peer]; {
	case ev.PeerName == "":
		ev.PeerName = known
	case ns != nil && (ok || len(ns) < maxWatchNames):
		ns[ev.Peer] = ev.PeerName
	}
}

// describe renders an event on one line for people; names names the
// author of a line mirrored from a third peer.
func describe(ev peer.Event, names peerNames) string {
	s := ev.Time + " " + ev.Type
	if !ev.Peer.IsZero() {
		s += " " + peerLabel(ev.Peer, ev.PeerName)
	}
	if ev.Th != "" {
		s += " " + ev.Th
	}
	switch {
	case ev.Line != nil:
		// The author only where it is not the event's peer (a line a
		// sharer mirrored): an in line is the peer's, an out line ours.
		s += " " + ev.Line.Dir
		if f := ev.Line.From; ev.Line.Dir == "in" && f != ev.Peer {
			s += " from " + peerLabel(f, names[f])
		}
		s += ": " + summarize(ev.Line.Line)
	case ev.Blob != nil:
		s += fmt.Sprintf(" blob %s %s %s", ev.Blob.Ref, dash(ev.Blob.Name), ev.Blob.State())
	case ev.Approval != nil:
		s += " " + ev.Approval.ID + " " + dash(strings.Join(ev.Approval.Caps, ","))
		if d := ev.Decision; d != nil {
			s += ": " + decisionText(*d)
		}
	case ev.Of != "":
		s += " of " + ev.Of
	}
	if ev.Err != "" {
		s += ": " + ev.Err
	}
	return terminalText(oneLine(s))
}

// decisionText is how a decided request was decided: "allowed for 1h by
// user", "denied by timeout: no answer".
func decisionText(d peer.Decision) string {
	s := "denied"
	if d.Allow {
		s = "allowed"
		if d.For > 0 {
			s += " for " + formatDuration(d.For)
		}
	}
	if d.By != "" {
		s += " by " + d.By
	}
	if d.Reason != "" {
		s += ": " + d.Reason
	}
	return s
}
