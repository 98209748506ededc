package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/localapi"
)

func runWatch(e *env, args []string) error {
	fs := newFlags("watch")
	asJSON := fs.Bool("json", false, "print each event as one JSON object per line")
	w, err := askPeer(e, fs, args, "watch", (*localapi.Client).Watch)
	if err != nil {
		return err
	}
	defer w.Close()
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
		if _, err := fmt.Fprintln(e.stdout, describe(ev)); err != nil {
			return fmt.Errorf("write output: %w", err)
		}
	}
}

// describe renders an event on one line for people.
func describe(ev peer.Event) string {
	s := ev.Time + " " + ev.Type
	if !ev.Peer.IsZero() {
		name := ev.PeerName
		if name == "" && ev.Approval != nil {
			name = ev.Approval.FromName // the event's peer is the asker
		}
		s += " " + peerLabel(ev.Peer, name)
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
			s += " from " + shortKey(f)
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
