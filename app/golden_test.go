//lint:file-ignore SA1019 the built-in light and dark variants (theme.LightTheme, DarkTheme), on purpose

package app

import (
	"context"
	"encoding/json"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/awp-tray/awp-tray/app/render"
	"github.com/awp-tray/awp-tray/internal/nodetest"
	"github.com/awp-tray/awp-tray/internal/testsync"
	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/presence"
	"github.com/awp-tray/awp-tray/peer/wire"
)

func TestMain(m *testing.M) {
	// Golden images show clock times: render them in UTC everywhere.
	time.Local = time.UTC
	os.Exit(m.Run())
}

// goldenNow is the fixed clock of the nodes behind the golden images.
var goldenNow = time.Date(2020, 1, 2, 15, 4, 5, 0, time.UTC)

// goldenScene is two real nodes with deterministic content: fixed keys
// (key.FromSeed), a fixed clock (Config.Now), fixed thread ids, and "me"
// listening on nothing (it dials alice) so no port shows.
type goldenScene struct {
	na    *nodeApp
	me    *peer.Node
	alice *peer.Node
	req   <-chan error
}

const (
	goldenThA = "thr_golden1"
	goldenThB = "thr_golden2"
)

func newGoldenScene(t *testing.T) *goldenScene {
	t.Helper()
	// The clock moves only between steps, after each step settled, so
	// every time a node records is the same on every run.
	var clock atomic.Int64
	clock.Store(goldenNow.UnixNano())
	now := func() time.Time { return time.Unix(0, clock.Load()).UTC() }
	ws := t.TempDir()
	alice := nodetest.New(t, "alice", 2, func(c *peer.Config) {
		c.Now = now
		c.Harness, c.Model = "claude-code", "opus"
		c.PresenceDebounce = 20 * time.Millisecond
		c.Presence = presence.DetailFull // her threads show in the presence window
	})
	me := nodetest.New(t, "me", 1, func(c *peer.Config) {
		c.Now, c.Listen, c.Workspace = now, nil, ws
		c.PresenceDebounce = 20 * time.Millisecond
		// The same prompt and Settings on every machine, bubblewrap or not.
		c.ExecSandbox = "none"
	})
	nodetest.Link(t, me, alice)
	na := newNodeApp(t, me)
	na.main.clock = func() time.Time { return goldenNow.Add(10 * time.Minute) }
	ctx := context.Background()
	settled := func() bool {
		for _, n := range []*peer.Node{me, alice} {
			ts, _ := n.Threads()
			for _, th := range ts {
				ls, _ := n.Lines(th.Th, th.MirroredFrom)
				for _, l := range ls {
					if l.Dir == "out" && !l.Acked {
						return false
					}
				}
			}
		}
		return true
	}
	step := func(what string, fn func()) {
		fn()
		testsync.Eventually(t, what+" delivered", settled)
		clock.Add(int64(time.Minute))
	}

	step("the request for a port", func() {
		nodetest.Say(t, alice, me.Key(), goldenThA, "Port the auth middleware", "can you take this? the tests are in services/api")
	})
	step("my answer", func() {
		nodetest.Say(t, me, alice.Key(), goldenThA, "", "on it")
		if _, err := me.SetState(ctx, goldenThA, "working", "porting"); err != nil {
			t.Fatal(err)
		}
	})
	step("the release thread", func() {
		nodetest.Say(t, me, alice.Key(), goldenThB, "Release build", "the release build is red on arm64")
	})
	step("a grant", func() {
		if _, err := me.Grant(ctx, alice.Key(), []string{"fs:read"}, 2*time.Hour, nil, "logs"); err != nil {
			t.Fatal(err)
		}
	})
	step("alice's answer", func() { nodetest.Say(t, alice, me.Key(), goldenThB, "", "looking") })
	if err := me.SetMirrorHosts([]key.PublicKey{alice.Key()}); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if t.Failed() {
			for _, pi := range me.Presence() {
				t.Logf("presence: %s", pi.Doc)
			}
		}
	}()
	aliceDoc := func(threads int) func() bool {
		return func() bool {
			for _, pi := range me.Presence() {
				var d presence.Doc
				if json.Unmarshal(pi.Doc, &d) == nil && len(d.Threads) == threads {
					return true
				}
			}
			return false
		}
	}
	testsync.Eventually(t, "alice's presence document", aliceDoc(3))
	// A request waiting for me, in the thread of requests and grants
	// between us (where my grant went).
	req := nodetest.ExecRequest(alice, me.Key(), "make test")
	na.pump(t, "the pending request", func() bool { return len(me.Pending()) == 1 && na.counts().Approvals == 1 })
	// alice's document lists the request's thread as updated then: wait
	// for it, so the Presence window shows a settled document.
	reqTime := wire.FormatTime(now())
	testsync.Eventually(t, "alice's document with the request", func() bool {
		for _, pi := range me.Presence() {
			var d presence.Doc
			if json.Unmarshal(pi.Doc, &d) != nil {
				continue
			}
			for _, th := range d.Threads {
				if th.Subject == peer.RequestsSubject && th.Updated == reqTime {
					return len(d.Threads) == 3
				}
			}
		}
		return false
	})
	na.refresh(dirtyAll)
	na.Wait()
	s := &goldenScene{na: na, me: me, alice: alice, req: req}
	return s
}

// steady removes what differs run to run from what the windows show:
// the handshake time (rtt) and the host name in presence documents.
func (s *goldenScene) steady() {
	na := s.na
	if p := na.presence; p != nil {
		for i := range p.peers {
			p.peers[i].RTTms = 0
		}
		var docs []peer.PresenceInfo
		for _, pi := range s.me.Presence() {
			var d map[string]any
			_ = json.Unmarshal(pi.Doc, &d)
			d["host"] = "build-box"
			pi.Doc, _ = json.Marshal(d)
			docs = append(docs, pi)
		}
		p.setDocs(docs)
	}
}

// capture matches a window's image with testdata/<name>_<variant>.png.
func capture(t *testing.T, w fyne.Window, name, variant string) {
	t.Helper()
	test.AssertImageMatches(t, name+"_"+variant+".png", w.Canvas().Capture())
}

func TestGoldenWindows(t *testing.T) {
	s := newGoldenScene(t)
	na := s.na
	for _, v := range themes {
		t.Run(v.name, func(t *testing.T) {
			test.ApplyTheme(t, v.th)

			na.main.w.Resize(fyne.NewSize(720, 420))
			capture(t, na.main.w, "threads", v.name)

			na.showPresence()
			na.Wait()
			s.steady()
			na.presence.w.Resize(fyne.NewSize(760, 520))
			capture(t, na.presence.w, "presence", v.name)

			na.showApprovals()
			na.Wait()
			// The window's clock a minute after the request came: the
			// countdown shows 4:00 left.
			if c, ok := render.ParseTime(s.me.Pending()[0].Created); ok {
				na.approvals.clock.(*testClock).now = c.Add(time.Minute - armDelay)
				na.approvals.rearm()
			}
			na.approvals.looked() // the buttons as a person sees them after a look
			na.approvals.w.Resize(fyne.NewSize(860, 560))
			capture(t, na.approvals.w, "approvals", v.name)

			na.showSettings()
			na.Wait()
			capture(t, na.settings.w, "settings", v.name)

			info, _ := na.thread(goldenThA)
			tw := na.openThread(info)
			na.Wait()
			tw.w.Resize(fyne.NewSize(860, 560))
			tw.list.ScrollToTop()
			capture(t, tw.w, "thread", v.name)
		})
	}

	// What the images show came from the node.
	if h := na.settings.chosenHosts(); len(h) != 1 || h[0] != s.alice.Key().String() {
		t.Errorf("mirror hosts ticked = %v", h)
	}
	if len(na.approvals.grants) != 1 {
		t.Errorf("grants shown = %d, want 1", len(na.approvals.grants))
	}
}
