package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/awp-tray/awp-tray/peer"
)

// TestMirrorE2E runs a party P, a sharer S (`awp run --mirror-to H`) and a
// host H as real processes (docs/protocol/mirror.md): H receives S's thread with P,
// keeps every mirrored line across a kill -9 in the middle of a burst, and
// once P makes the thread private H gets a withdraw and no later line of
// it, also across restarts of S and H.
func TestMirrorE2E(t *testing.T) {
	if testing.Short() {
		t.Skip("runs three real peers")
	}
	awpBinary(t)
	if !hasCommand(t, "private") {
		t.Skip("this awp has no `private` command yet")
	}
	h := newDaemon(t, "host")
	hostAddr := h.Listen()[0]
	s := newDaemon(t, "sharer", "--mirror-to", h.Key())
	sharerAddr := s.Listen()[0]
	p := newDaemon(t, "party")
	// S keeps dialing H and P keeps dialing S, also after restarts; both
	// restart on the address they listened on.
	if got := strings.TrimSpace(awpOK(t, "connect", "--data", s.dir, hostAddr)); got != h.Key() {
		t.Fatalf("S connect printed %q, want H's key", got)
	}
	if got := strings.TrimSpace(awpOK(t, "connect", "--data", p.dir, sharerAddr)); got != s.Key() {
		t.Fatalf("P connect printed %q, want S's key", got)
	}

	// A conversation P ↔ S.
	res := awpJSON[peer.SendResult](t, "send", "--data", p.dir, "--to", s.Key(), "--subject", "mirrored", "--text", "p-0")
	th := res.Th
	eventually(t, "P's first msg at S", func() (bool, string) {
		ls := mirrorShow(t, s, th, "")
		return len(ls) == 1, fmt.Sprintf("S has %d lines", len(ls))
	})
	awpOK(t, "send", "--data", s.dir, "--to", p.Key(), "--th", th, "--text", "s-0")
	awpOK(t, "send", "--data", p.dir, "--to", s.Key(), "--th", th, "--text", "p-1")
	waitMirrored(t, s, h, th, 3)

	ths := awpJSON[[]peer.ThreadInfo](t, "threads", "--data", h.dir, "--json")
	if len(ths) != 1 || ths[0].Th != th || ths[0].MirroredFrom.String() != s.Key() || ths[0].Peer.String() != p.Key() || ths[0].Subject != "mirrored" {
		t.Fatalf("H's threads = %+v, want %s mirrored from S with P", ths, th)
	}
	lines := showLines(t, h, th, s.Key())
	want := []struct{ dir, from, text string }{{"in", p.Key(), "p-0"}, {"out", s.Key(), "s-0"}, {"in", p.Key(), "p-1"}}
	for i, w := range want {
		l := lines[i]
		if l.Dir != w.dir || l.From != w.from || l.text() != w.text || l.MirroredFrom != s.Key() || l.Line.Th != th {
			t.Errorf("H's mirrored line %d = %+v, want dir %s from %s text %q mirrored_from S", i, l, w.dir, w.from, w.text)
		}
	}

	// A burst both ways; H is killed -9 in the middle and restarted.
	const each = 250
	pb := newBurst(p, s.Key(), th, each, 0)
	sb := newBurst(s, p.Key(), th, each, 0)
	reached := make(chan struct{})
	done := make(chan struct{}, 2)
	go func() { pb.run(burstRange(each), nil, each/2, reached); done <- struct{}{} }()
	go func() { sb.run(burstRange(each), nil, 0, nil); done <- struct{}{} }()
	<-reached
	h.kill9()
	t.Logf("H killed after P queued %d msgs of its burst", each/2)
	h.restart("--listen", hostAddr)
	<-done
	<-done
	for _, b := range []*burst{pb, sb} {
		for i, o := range b.outcomes()[1:] {
			if !o.ok {
				t.Fatalf("burst msg %d: %s", i+1, o.err)
			}
		}
	}
	total := 3 + 2*(each-1)
	waitMirrored(t, s, h, th, total)

	// P makes the thread private: S withdraws it from H.
	pr := awpJSON[peer.SendResult](t, "private", "--data", p.dir, th)
	if pr.Th != th || pr.ID == "" {
		t.Fatalf("private printed %+v", pr)
	}
	eventually(t, "S marks the thread private", func() (bool, string) {
		ti := findThread(t, s, th, "")
		return ti != nil && ti.Private && !ti.Mirror, fmt.Sprintf("S's thread: %+v", ti)
	})
	eventually(t, "H withdraws the thread", func() (bool, string) {
		ti := findThread(t, h, th, s.Key())
		ls := mirrorShow(t, h, th, s.Key())
		return ti != nil && ti.Withdrawn && len(ls) == 0, fmt.Sprintf("H's thread %+v, %d lines", ti, len(ls))
	})

	// Later lines of the thread, both ways, never reach H. A barrier thread
	// mirrored after them shows H has had everything S queued for it.
	moreLines := func(round int) {
		for i := range 3 {
			awpOK(t, "send", "--data", p.dir, "--to", s.Key(), "--th", th, "--text", fmt.Sprintf("private-p-%d-%d", round, i))
			awpOK(t, "send", "--data", s.dir, "--to", p.Key(), "--th", th, "--text", fmt.Sprintf("private-s-%d-%d", round, i))
		}
		eventually(t, "the private lines delivered and acked both ways", func() (bool, string) {
			for _, d := range []*daemon{p, s} {
				for _, l := range mirrorShow(t, d, th, "") {
					if l.Dir == "out" && !l.Acked {
						return false, fmt.Sprintf("%s: %s not acked", d.name, l.Line.ID)
					}
				}
			}
			return true, ""
		})
		b := awpJSON[peer.SendResult](t, "send", "--data", p.dir, "--to", s.Key(), "--subject", "barrier", "--text", fmt.Sprintf("barrier-%d", round))
		waitMirrored(t, s, h, b.Th, 1)
		ti := findThread(t, h, th, s.Key())
		if ti == nil || !ti.Withdrawn {
			t.Errorf("round %d: H's thread %s is no longer withdrawn: %+v", round, th, ti)
		}
		if ls := mirrorShow(t, h, th, s.Key()); len(ls) != 0 {
			t.Errorf("round %d: H received %d lines of the private thread, first %+v", round, len(ls), ls[0])
		}
	}
	moreLines(1)

	// Kill -9 and restart both S and H; P redials S, S redials H.
	s.kill9()
	h.kill9()
	h.restart("--listen", hostAddr)
	s.restart("--listen", sharerAddr, "--mirror-to", h.Key())
	if ti := findThread(t, s, th, ""); ti == nil || !ti.Private {
		t.Errorf("S's thread after the restart: %+v, want private", ti)
	}
	moreLines(2)
	// And once more with a clean stop of both.
	h.stop()
	s.stop()
	h.restart("--listen", hostAddr)
	s.restart("--listen", sharerAddr, "--mirror-to", h.Key())
	moreLines(3)

	// The private thread itself is intact at S and P.
	for _, d := range []*daemon{p, s} {
		if n := len(mirrorShow(t, d, th, "")); n < total+1+3*6 {
			t.Errorf("%s holds %d lines of the thread, want at least %d", d.name, n, total+1+3*6)
		}
	}
}

// mirrorShow is showLines that tolerates a thread not there yet.
func mirrorShow(t *testing.T, d *daemon, th, from string) []shownLine {
	t.Helper()
	if findThread(t, d, th, from) == nil {
		return nil
	}
	return showLines(t, d, th, from)
}

// findThread returns the daemon's thread th (mirrored from from, or its
// own when from is ""), or nil.
func findThread(t *testing.T, d *daemon, th, from string) *peer.ThreadInfo {
	t.Helper()
	for _, ti := range awpJSON[[]peer.ThreadInfo](t, "threads", "--data", d.dir, "--json") {
		if ti.Th == th && ti.MirroredFrom.String() == from {
			return &ti
		}
	}
	return nil
}

// waitMirrored waits until host h holds exactly sharer s's lines of th (at
// least n of them): the same ids in the same order, each once.
func waitMirrored(t *testing.T, s, h *daemon, th string, n int) {
	t.Helper()
	var src, dst []shownLine
	eventually(t, fmt.Sprintf("%s mirrored to H", th), func() (bool, string) {
		src = mirrorShow(t, s, th, "")
		if len(src) < n {
			return false, fmt.Sprintf("S has %d lines, want %d", len(src), n)
		}
		dst = mirrorShow(t, h, th, s.Key())
		if len(dst) < len(src) {
			return false, fmt.Sprintf("H has %d of S's %d lines", len(dst), len(src))
		}
		return true, ""
	})
	ids := func(ls []shownLine) []string {
		out := make([]string, len(ls))
		for i, l := range ls {
			out[i] = l.Line.ID
		}
		return out
	}
	a, b := ids(src), ids(dst)
	if !slices.Equal(a, b) {
		seen := map[string]int{}
		for _, id := range b {
			seen[id]++
		}
		for id, c := range seen {
			if c > 1 {
				t.Errorf("H holds line %s %d times", id, c)
			}
		}
		for _, id := range a {
			if seen[id] == 0 {
				t.Errorf("H lacks S's line %s", id)
			}
		}
		t.Fatalf("H's mirrored %s (%d lines) differs from S's (%d lines)", th, len(b), len(a))
	}
	for i := range src {
		if dst[i].Dir != src[i].Dir || dst[i].From != src[i].From || dst[i].MirroredFrom != s.Key() || dst[i].text() != src[i].text() {
			t.Fatalf("H's line %d = %+v, S's %+v", i, dst[i], src[i])
		}
	}
}
