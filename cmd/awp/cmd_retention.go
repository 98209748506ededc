package main

import (
	"fmt"
	"time"

	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/localapi"
)

// runRetention shows the running peer's retention, after changing what the
// flags give.
func runRetention(e *env, args []string) error {
	fs := newFlags("retention")
	var rf retentionFlags
	rf.flags(fs)
	asJSON := fs.jsonFlag(false)
	c, err := e.clientNoArgs(fs, args)
	if err != nil {
		return err
	}
	if err := rf.check(); err != nil {
		return err
	}
	var b localapi.RetentionBody
	if rf.threads != "" || rf.blobs != "" {
		var set localapi.RetentionBody
		if rf.threads != "" {
			set.KeepThreads = &rf.threads
		}
		if rf.blobs != "" {
			set.KeepBlobs = &rf.blobs
		}
		b, err = c.SetRetention(e.ctx, set)
	} else {
		b, err = c.Retention(e.ctx)
	}
	if err != nil {
		return e.wrap("retention", err)
	}
	return e.answer(*asJSON, b, fmt.Sprintf("keep threads: %s\nkeep blobs of closed threads: %s", deref(b.KeepThreads), deref(b.KeepBlobs)))
}

func deref(s *string) string {
	if s == nil {
		return "-"
	}
	return *s
}

// retentionFlags are --keep-threads and --keep-blobs (`awp run`, `awp
// retention`).
type retentionFlags struct {
	threads, blobs string
}

func (o *retentionFlags) flags(fs *flagSet) {
	fs.StringVar(&o.threads, "keep-threads", "", "delete threads with no line for this long: days (90d), a duration (36h) or off (default: the stored setting, at first off)")
	fs.StringVar(&o.blobs, "keep-blobs", "", "delete blob files of closed threads with no line for this long: days (30d), a duration or off (default: the stored setting, at first off)")
}

func (o *retentionFlags) check() error {
	for _, f := range []struct{ name, v string }{{"--keep-threads", o.threads}, {"--keep-blobs", o.blobs}} {
		if f.v == "" {
			continue
		}
		if _, err := peer.ParseKeep(f.v); err != nil {
			return usagef("%s: %v", f.name, err)
		}
	}
	return nil
}

// apply sets the node's retention from the flags given (unset ones keep
// the stored setting).
func (o *retentionFlags) apply(cfg *peer.Config) {
	parse := func(v string) *time.Duration {
		if v == "" {
			return nil
		}
		d, _ := peer.ParseKeep(v) // checked
		return &d
	}
	cfg.KeepThreads, cfg.KeepBlobs = parse(o.threads), parse(o.blobs)
}
