package main

import (
	"strings"
	"time"

	"github.com/awp-tray/awp-tray/internal/visible"
	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/localapi"
)

func runPending(e *env, args []string) error {
	return runList(e, args, "pending", (*localapi.Client).Pending, "ID\tKIND\tFROM\tCAPS\tTH\tDEADLINE\tREQUEST", func(p peer.ApprovalRequest) []string {
		return []string{p.ID, string(p.Kind), peerLabel(p.From, p.FromName), dash(strings.Join(p.Caps, ",")), p.Th, p.Deadline, requestText(p)}
	})
}

// requestText is what a pending request asks for (visible.Request; its
// JSON, --json, has all of it).
func requestText(p peer.ApprovalRequest) string {
	if len(p.Detail) == 0 || string(p.Detail) == "null" {
		return "-"
	}
	s, _ := visible.Request(p.Detail)
	return s
}

// terminalText is s on one line with nothing a terminal would act on: the
// characters that do not show as themselves escaped (visible.String, which
// covers ESC and the other control characters), and newlines and tabs as
// \n and \t.
func terminalText(s string) string {
	return escapeBreaks.Replace(visible.String(s))
}

// escapeBreaks writes newlines and tabs as \n and \t.
var escapeBreaks = strings.NewReplacer("\n", `\n`, "\t", `\t`)

func runDecide(e *env, args []string) error {
	fs := newFlags("decide")
	dur := fs.duration("for", 0, "with allow: also issue a grant valid this long (e.g. 1h, 7d)")
	reason := fs.String("reason", "", "why (sent with a denial)")
	pos, err := fs.parse(args)
	if err != nil {
		return err
	}
	if err := nArgs(pos, 2, "ID and allow|deny"); err != nil {
		return err
	}
	d := peer.Decision{Reason: *reason, By: "user"}
	switch pos[1] {
	case "allow":
		d.Allow = true
	case "deny":
		if *dur != 0 {
			return usagef("--for goes with allow")
		}
	default:
		return usagef("%q: want allow or deny", pos[1])
	}
	if *dur < 0 {
		return usagef("--for must not be negative")
	}
	d.For = time.Duration(*dur)
	c, err := e.client(fs)
	if err != nil {
		return err
	}
	return e.wrap("decide", c.Decide(e.ctx, pos[0], d))
}
