package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/localapi"
)

// WaitIn is awp_wait's input.
type WaitIn struct {
	Th       string `json:"th,omitempty" jsonschema:"wait for a line in this thread only"`
	From     string `json:"from,omitempty" jsonschema:"wait for a line from this peer only (key, key prefix or name)"`
	TimeoutS int    `json:"timeout_s,omitempty" jsonschema:"give up after this many seconds"`
	Peek     bool   `json:"peek,omitempty" jsonschema:"leave the lines unread (a second awp_wait then returns them again at once)"`
}

// WaitOut is awp_wait's answer.
type WaitOut struct {
	InboxOut
	TimedOut bool  `json:"timed_out" jsonschema:"no line arrived within timeout_s"`
	WaitedMS int64 `json:"waited_ms"`
}

// wait returns the unread lines f selects as soon as there are any: at
// once when some are unread already, else when the peer stores one, or
// empty-handed at the timeout. It subscribes to the peer's events before
// it looks, so a line stored while it looks wakes it.
func (s *Server) wait(ctx context.Context, req *mcp.CallToolRequest, in WaitIn) (*mcp.CallToolResult, WaitOut, error) {
	f, err := s.filter(ctx, in.Th, in.From)
	if err != nil {
		return nil, WaitOut{}, err
	}
	timeout := time.Duration(in.TimeoutS) * time.Second
	if timeout <= 0 {
		timeout = DefaultWaitSeconds * time.Second
	}
	start := time.Now()
	if s.waiting.Add(1) > MaxWaits {
		s.waiting.Add(-1)
		return nil, WaitOut{}, fmt.Errorf("%d awp_wait calls are already waiting here, the most at once: wait in one of them (without th or from it returns any line)", MaxWaits)
	}
	defer s.waiting.Add(-1)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := call(s, ctx, s.c.Watch)
	if err != nil {
		return nil, WaitOut{}, err
	}
	defer stream.Close()
	woke := make(chan struct{}, 1) // coalesces wake-ups
	ended := make(chan error, 1)
	go func() {
		for {
			ev, err := stream.Next()
			if err != nil {
				ended <- err
				return
			}
			if f.matchEvent(ev) {
				select {
				case woke <- struct{}{}:
				default:
				}
			}
		}
	}()
	defer s.progress(ctx, req, timeout, "waiting for a line")()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		ths, more, err := s.unread(ctx, f, in.Peek)
		if err != nil {
			return nil, WaitOut{}, err
		}
		if len(ths) > 0 {
			out := WaitOut{InboxOut: InboxOut{Threads: ths, More: more, Peeked: in.Peek}, WaitedMS: time.Since(start).Milliseconds()}
			return text(renderInbox(out.InboxOut, "")), out, nil
		}
		select {
		case <-woke:
		case <-timer.C:
			out := WaitOut{InboxOut: InboxOut{Threads: []ThreadLines{}}, TimedOut: true, WaitedMS: time.Since(start).Milliseconds()}
			return text(fmt.Sprintf("No line arrived within %v. Call awp_wait again to keep waiting.", timeout)), out, nil
		case err := <-ended:
			if ctx.Err() != nil {
				return nil, WaitOut{}, ctx.Err()
			}
			return nil, WaitOut{}, streamEnded(err)
		case <-ctx.Done():
			return nil, WaitOut{}, ctx.Err()
		}
	}
}

// streamEnded explains a watch that ended under a waiting tool.
func streamEnded(err error) error {
	return fmt.Errorf("the AWP peer stopped while this call waited (%v); call again once it runs", err)
}

// progress sends notifications/progress for req every ProgressInterval
// until the returned stop is called, when the client asked for progress
// (gave a progress token). total is the longest the call waits.
func (s *Server) progress(ctx context.Context, req *mcp.CallToolRequest, total time.Duration, what string) (stop func()) {
	token := req.Params.GetProgressToken()
	if token == nil || req.Session == nil {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		start := time.Now()
		t := time.NewTicker(s.opt.ProgressInterval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			el := time.Since(start)
			err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
				ProgressToken: token, Progress: el.Seconds(), Total: total.Seconds(),
				Message: fmt.Sprintf("%s: %ds of %ds", what, int(el.Seconds()), int(total.Seconds())),
			})
			if err != nil && !errors.Is(err, context.Canceled) {
				s.log.Debug("progress notification", "err", err)
			}
		}
	}()
	return func() {
		cancel()
		<-done
	}
}

// watchFor waits on stream for an event match accepts, until ctx ends;
// it returns the event, or why none came.
func watchFor(ctx context.Context, stream *localapi.EventStream, match func(peer.Event) bool) (peer.Event, error) {
	type res struct {
		ev  peer.Event
		err error
	}
	got := make(chan res, 1)
	go func() {
		for {
			ev, err := stream.Next()
			if err != nil || match(ev) {
				got <- res{ev, err}
				return
			}
		}
	}()
	select {
	case r := <-got:
		return r.ev, r.err
	case <-ctx.Done():
		stream.Close() // ends the reader
		return peer.Event{}, ctx.Err()
	}
}
