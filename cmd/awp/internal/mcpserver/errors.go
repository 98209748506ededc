package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/localapi"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// This file turns failures into tool errors: one or two sentences that say
// what went wrong and what the agent can do about it.

// badArg is a bad argument: the text names the argument and what it wants.
func badArg(format string, a ...any) error {
	return fmt.Errorf("bad arguments: "+format, a...)
}

// call runs f against the peer. When no peer runs and Options.Ensure is
// set, it asks Ensure to start one and runs f once more (a call that found
// no peer sent nothing). The error comes back in the agent's words.
func call[T any](s *Server, ctx context.Context, f func(context.Context) (T, error)) (T, error) {
	v, err := f(ctx)
	if errors.Is(err, localapi.ErrNotRunning) && s.opt.Ensure != nil {
		if eerr := s.opt.Ensure(ctx); eerr != nil {
			return v, s.notRunning(eerr)
		}
		v, err = f(ctx)
	}
	return v, s.agentError(err)
}

// call0 is call for functions that return only an error.
func call0(s *Server, ctx context.Context, f func(context.Context) error) error {
	_, err := call(s, ctx, func(ctx context.Context) (struct{}, error) { return struct{}{}, f(ctx) })
	return err
}

// notRunning says no peer answers and how to get one.
func (s *Server) notRunning(cause error) error {
	dir := s.opt.DataDir
	if dir == "" {
		dir = "its data directory"
	}
	if cause != nil && s.opt.Ensure != nil {
		return fmt.Errorf("no AWP peer is running for %s, and starting one failed: %v. Fix that (the log of `awp mcp` on stderr says more), then call the tool again", dir, cause)
	}
	return fmt.Errorf("no AWP peer is running for %s. Start one with `awp run --data %s` (or restart this MCP server as `awp mcp --run`), then call the tool again", dir, dir)
}

// agentError rewrites errors from the local API for an agent; nil stays
// nil and context errors stay themselves (the call was canceled).
func (s *Server) agentError(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, localapi.ErrNotRunning):
		return s.notRunning(nil)
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	case errors.Is(err, localapi.ErrAmbiguousKey):
		return fmt.Errorf("%v. Give more characters of the key, or the full key from awp_peers", err)
	case errors.Is(err, localapi.ErrUnknownKey):
		return fmt.Errorf("%v. Call awp_peers for the peers this one knows; a peer it never met must be added first (its owner can send an invite)", err)
	}
	var re *localapi.RemoteError
	if errors.As(err, &re) && re.Err == nil { // an err line stays one: the caller explains it
		msg := strings.TrimPrefix(re.Msg, "peer: ")
		switch {
		case strings.Contains(re.Msg, peer.ErrNoThread.Error()):
			return fmt.Errorf("%s. Take th from awp_inbox, awp_wait or a line you sent", msg)
		case strings.Contains(re.Msg, peer.ErrBadKey.Error()):
			return fmt.Errorf("%s. Name the peer by its key, a key prefix or its name (awp_peers lists them)", msg)
		}
		return errors.New(msg)
	}
	return err
}

// refusal describes an err line that answered a request.
func refusal(we *wire.Err, to string) error {
	msg := we.Msg
	if msg != "" {
		msg = ": " + msg
	}
	switch we.Code {
	case "forbidden":
		return fmt.Errorf("forbidden%s. %s holds no grant letting this peer do that: call awp_request again with ask_grant set to ask for one, or ask its owner to approve the request", msg, to)
	case "rate_limited":
		return fmt.Errorf("rate_limited%s. %s is busy: wait a little and call again", msg, to)
	}
	return fmt.Errorf("%s%s (refused by %s)", we.Code, msg, to)
}

// checkTh reports a bad thread id.
func checkTh(name, th string) error {
	if th != "" && !wire.ValidThread(th) {
		return badArg("%s %q is not a thread id (thr_ and up to 32 of [0-9a-z]); take it from a line or from awp_inbox", name, th)
	}
	return nil
}
