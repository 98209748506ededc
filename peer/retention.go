package peer

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/awp-tray/awp-tray/peer/store"
)

// Retention is how long the node keeps threads and blobs nobody uses any
// more (docs/protocol.md "Retention"). Zero keeps forever, the default.
type Retention struct {
	// KeepThreads: threads with no line for this long are deleted, with
	// their lines and blobs (never one with lines not yet acked).
	KeepThreads time.Duration
	// KeepBlobs: blob files of closed threads (either side's state done,
	// failed or closed) with no line for this long are deleted.
	KeepBlobs time.Duration
}

// Timing of the retention sweep. Each pass is bounded (store.SweepLines,
// SweepThreads, SweepBlobs), so a long backlog is cleared in many short
// passes, retentionBusy apart, rather than in one that holds the store.
const (
	retentionFirst = time.Minute      // the first pass after Start (a start stays light)
	retentionEvery = 10 * time.Minute // then one this often
	retentionBusy  = 2 * time.Second  // the next pass after one that stopped at a bound
)

// retentionState wakes the sweep when the setting changes.
type retentionState struct {
	wake chan struct{}
}

// Retention returns the stored retention setting.
func (n *Node) Retention() (Retention, error) {
	var r store.Retention
	err := n.db.View(func(tx *store.Tx) error {
		r = tx.Retention()
		return nil
	})
	return Retention(r), err
}

// SetRetention stores r and runs a sweep pass soon.
func (n *Node) SetRetention(r Retention) error {
	if r.KeepThreads < 0 || r.KeepBlobs < 0 {
		return errors.New("peer: retention: a duration must not be negative")
	}
	if err := n.commit.run(func(tx *store.Tx) error { return tx.PutRetention(store.Retention(r)) }); err != nil {
		return err
	}
	n.publish(Event{Type: EventSettings})
	select {
	case n.ret.wake <- struct{}{}:
	default:
	}
	return nil
}

// startRetention stores what Config.KeepThreads and KeepBlobs set (a nil
// one keeps the stored value; zero keeps forever) and starts the sweep
// and the thread list's load in the background (Start).
func (n *Node) startRetention() error {
	if err := n.applyRetentionConfig(); err != nil {
		return err
	}
	n.wg.Add(2)
	go n.retentionLoop()
	go n.warmThreads()
	return nil
}

// applyRetentionConfig stores what Config.KeepThreads and KeepBlobs set.
func (n *Node) applyRetentionConfig() error {
	if n.cfg.KeepThreads == nil && n.cfg.KeepBlobs == nil {
		return nil
	}
	r, err := n.Retention()
	if err != nil {
		return err
	}
	if n.cfg.KeepThreads != nil {
		r.KeepThreads = *n.cfg.KeepThreads
	}
	if n.cfg.KeepBlobs != nil {
		r.KeepBlobs = *n.cfg.KeepBlobs
	}
	return n.SetRetention(r)
}

// SweepResult says what one retention pass did.
type SweepResult = store.SweepResult

// Sweep runs one retention pass now (tests and tools; the node runs them
// on its own).
func (n *Node) Sweep() (SweepResult, error) {
	r, err := n.Retention()
	if err != nil {
		return SweepResult{}, err
	}
	res, err := n.db.Sweep(n.now(), store.Retention(r))
	if res.Changed() {
		n.log.Info("retention", "threads", res.Threads, "lines", res.Lines, "blobs", res.Blobs, "blob_bytes", res.BlobBytes)
		n.publish(Event{Type: EventThread})
		n.presenceChanged()
	}
	return res, err
}

// retentionLoop runs the sweep: first retentionFirst after Start, then
// every retentionEvery, sooner while a pass leaves work, and soon after
// the setting changes.
func (n *Node) retentionLoop() {
	defer n.wg.Done()
	t := time.NewTimer(retentionFirst)
	defer t.Stop()
	for {
		select {
		case <-n.ctx.Done():
			return
		case <-n.ret.wake:
			t.Reset(retentionBusy)
			continue
		case <-t.C:
		}
		next := retentionEvery
		res, err := n.Sweep()
		switch {
		case err != nil:
			if n.ctx.Err() != nil {
				return
			}
			n.log.Warn("retention sweep", "err", err)
		case res.More:
			next = retentionBusy
		}
		t.Reset(next)
	}
}

// ParseKeep reads a retention duration: a number of days ("90d"), a Go
// duration ("36h", "90m"), or "off" / "0" / "" for keep forever.
func ParseKeep(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	switch s {
	case "", "0", "off", "forever":
		return 0, nil
	}
	if d, ok := strings.CutSuffix(s, "d"); ok {
		days, err := strconv.ParseFloat(d, 64)
		if err != nil || !(days >= 0 && days <= maxKeepDays) { // NaN fails both
			return 0, fmt.Errorf("retention %q: want days from 0 to %d (90d), a duration (36h) or off", s, maxKeepDays)
		}
		return time.Duration(days * float64(24*time.Hour)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("retention %q: want days (90d), a duration (36h) or off", s)
	}
	return d, nil
}

// maxKeepDays is the longest retention ParseKeep takes in days (100
// years: a time.Duration holds about 290).
const maxKeepDays = 36500

// FormatKeep writes a retention duration as ParseKeep reads it: "90d",
// "36h", "90m", zero as "off".
func FormatKeep(d time.Duration) string {
	switch {
	case d == 0:
		return "off"
	case d%(24*time.Hour) == 0:
		return strconv.FormatInt(int64(d/(24*time.Hour)), 10) + "d"
	case d%time.Hour == 0:
		return strconv.FormatInt(int64(d/time.Hour), 10) + "h"
	case d%time.Minute == 0:
		return strconv.FormatInt(int64(d/time.Minute), 10) + "m"
	}
	return d.String()
}
