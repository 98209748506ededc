package main

import (
	"fmt"
	"time"

	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/localapi"
)

var cmdPending = &command{
	name:    "pending",
	usage:   "awp pending [--data DIR] [--json]",
	summary: "lists requests waiting for a decision",
	run:     runPending,
}

var cmdDecide = &command{
	name:    "decide",
	usage:   "awp decide [--data DIR] [--for DURATION] [--reason R] ID allow|deny",
	summary: "answers a pending request (allow --for D also issues a grant valid for D)",
	run:     runDecide,
}

func runPending(e *env, args []string) error {
	return runList(e, args, "pending", (*localapi.Client).Pending, "ID\tKIND\tFROM\tCAPS\tTH\tDEADLINE", func(p peer.ApprovalRequest) string {
		return fmt.Sprintf("%s\t%s\t%s\t%v\t%s\t%s", p.ID, p.Kind, shortKey(p.From), p.Caps, p.Th, p.Deadline)
	})
}

func runDecide(e *env, args []string) error {
	fs := newFlags("decide")
	dur := fs.Duration("for", 0, "with allow: also issue a grant valid this long")
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
