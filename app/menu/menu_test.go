package menu

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/awp-tray/awp-tray/app/icon"
	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/key"
)

const (
	alice = "ed25519:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAE"
	bob   = "ed25519:BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBA"
	carol = "ed25519:CCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCA"
	me    = "ed25519:MMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMA"
)

// now is 15:04 on a Thursday in Berlin, so times of day are checked in a
// zone that is not UTC.
var (
	berlin = mustZone("Europe/Berlin")
	now    = time.Date(2026, 3, 5, 15, 4, 0, 0, berlin)
)

// Keys as the API types carry them.
var aliceK, bobK, carolK, meK = key.MustParsePublic(alice), key.MustParsePublic(bob), key.MustParsePublic(carol), key.MustParsePublic(me)

func mustZone(name string) *time.Location {
	l, err := time.LoadLocation(name)
	if err != nil {
		return time.FixedZone("CET", 3600)
	}
	return l
}

// labels flattens a menu: "-" for a separator, "[x]" for a disabled item,
// submenus indented with "  ".
func labels(items []Item) []string {
	var out []string
	for _, it := range items {
		switch {
		case it.Separator:
			out = append(out, "-")
		case it.Disabled:
			out = append(out, "["+it.Label+"]")
		default:
			out = append(out, it.Label)
		}
		for _, c := range labels(it.Children) {
			out = append(out, "  "+c)
		}
	}
	return out
}

// find returns the item labelled l.
func find(items []Item, l string) (Item, bool) {
	for _, it := range items {
		if it.Label == l {
			return it, true
		}
		if c, ok := find(it.Children, l); ok {
			return c, true
		}
	}
	return Item{}, false
}

func execDetail(cmd ...string) json.RawMessage {
	b, _ := json.Marshal(map[string]any{"cmd": cmd, "cwd": "services/api"})
	return b
}

// busy is a node with seven threads (six unread), three known peers (two
// up) and two requests waiting.
func busy() State {
	var ths []peer.ThreadInfo
	for i := 0; i < 7; i++ {
		ths = append(ths, peer.ThreadInfo{
			Th: fmt.Sprintf("thr_%d", i), Peer: aliceK, PeerName: "alice", Subject: fmt.Sprintf("subject %d", i),
			Unread: i, Updated: fmt.Sprintf("2026-03-05T14:0%d:00Z", i),
		})
	}
	ths[2].PeerName, ths[2].Peer = "", bobK // named by the peer list
	ths[3].MirroredFrom = carolK
	return State{
		Booted:  true,
		Threads: ths,
		Peers:   []peer.PeerInfo{{Key: aliceK, Name: "alice", Up: true}, {Key: bobK, Name: "bob", Up: true}, {Key: carolK, Name: "carol"}},
		Pending: []peer.ApprovalRequest{
			{ID: "ap1", Kind: peer.ApprovalProfile, From: aliceK, FromName: "alice", Caps: []string{"exec"}, Detail: execDetail("make", "test")},
			{ID: "ap2", Kind: peer.ApprovalGrantRequest, From: bobK, FromName: "bob", Caps: []string{"fs:read"}},
		},
		Self: meK,
	}
}

// TestBuildWhatNeedsMe: under the status line, the five newest threads
// with unread lines (a sixth is counted) and every pending request; then
// the windows, invite, add peer, the pause submenu, settings and a Quit
// that says the peer goes offline.
func TestBuildWhatNeedsMe(t *testing.T) {
	got := labels(Build(busy(), now, berlin))
	want := []string{
		"[AWP: 2/3 peers up · 2 waiting for you]",
		"-",
		"alice: subject 6 (6)",
		"alice: subject 5 (5)",
		"alice: subject 4 (4)",
		"alice: subject 3 (3)",
		"bob: subject 2 (2)",
		"1 more unread thread…",
		"alice wants exec `make test`",
		"bob asks for a grant: fs:read",
		"-",
		"Threads (21 unread)",
		"Presence",
		"Approvals (2 pending)",
		"-",
		"Copy my invite",
		"Add peer…",
		"Pause notifications",
		"  For 1 hour",
		"  Until tomorrow 08:00",
		"  Until I resume them",
		"Settings",
		"-",
		"Quit (your peer goes offline)",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("menu:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// What the clicks ask for.
	items := Build(busy(), now, berlin)
	for l, want := range map[string]Action{
		"alice: subject 6 (6)":          {Kind: OpenThread, Th: "thr_6"},
		"alice: subject 3 (3)":          {Kind: OpenThread, Th: "thr_3", From: carolK},
		"1 more unread thread…":         {Kind: ShowThreads},
		"alice wants exec `make test`":  {Kind: OpenApproval, ID: "ap1"},
		"bob asks for a grant: fs:read": {Kind: OpenApproval, ID: "ap2"},
		"Threads (21 unread)":           {Kind: ShowThreads},
		"Approvals (2 pending)":         {Kind: ShowApprovals},
		"Until tomorrow 08:00":          {Kind: PauseTomorrow},
		LabelQuit:                       {Kind: Quit},
	} {
		it, ok := find(items, l)
		if !ok || it.Action != want {
			t.Errorf("%q: action %+v (found %v), want %+v", l, it.Action, ok, want)
		}
	}
	if items[0].Action.Kind != None {
		t.Errorf("the status line does something: %+v", items[0].Action)
	}
	if c := busy().Icon(); c != (icon.State{PeersUp: 2, Unread: 21, Approvals: 2}) {
		t.Errorf("icon state = %+v", c)
	}
}

// Nothing waiting: no section under the status line.
func TestBuildQuiet(t *testing.T) {
	s := State{Booted: true, Peers: []peer.PeerInfo{{Key: aliceK, Up: true}},
		Threads: []peer.ThreadInfo{{Th: "thr_r", Peer: aliceK, Subject: "read"}}}
	got := labels(Build(s, now, berlin))
	if got[0] != "[AWP: 1/1 peer up]" || got[1] != "-" || got[2] != "Threads" || got[4] != "Approvals" {
		t.Fatalf("quiet menu: %q", got)
	}
}

// Before the node runs, the menu says so and offers nothing that needs
// it; a failed start says why.
func TestBuildNotRunning(t *testing.T) {
	got := labels(Build(State{Threads: busy().Threads, Pending: busy().Pending}, now, berlin))
	if got[0] != "[AWP: starting…]" || got[1] != "-" || !strings.HasPrefix(got[2], "Threads") {
		t.Errorf("starting: %q", got)
	}
	for _, l := range []string{"[Copy my invite]", "[Add peer…]"} {
		if !slices.Contains(got, l) {
			t.Errorf("starting: no %s in %q", l, got)
		}
	}
	got = labels(Build(State{Err: "the OS keyring is unavailable"}, now, berlin))
	if got[0] != "[AWP: not running: the OS keyring is unavailable]" {
		t.Errorf("failed: %q", got[0])
	}
}

func TestStatusLineAndTooltip(t *testing.T) {
	two := []peer.PeerInfo{{Key: aliceK}, {Key: bobK}}
	for _, tc := range []struct {
		s             State
		status, tip   string
		pausedMinutes int
	}{
		{State{}, "starting…", "AWP: starting…", 0},
		{State{Booted: true}, "no peers yet", "AWP: no peers yet", 0},
		{State{Booted: true, Peers: two}, "offline: 0/2 peers up", "AWP: offline: 0/2 peers up", 0},
		{State{Booted: true, Peers: []peer.PeerInfo{{Key: aliceK, Up: true}, {Key: bobK}}, Threads: busy().Threads[:3]},
			"1/2 peers up", "AWP: 1/2 peers up · 3 unread in 2 threads", 0},
		{busy(), "2/3 peers up · 2 waiting for you · notifications paused until 16:04",
			"AWP: 2/3 peers up · 21 unread in 6 threads · 2 waiting for you · notifications paused until 16:04", 60},
	} {
		if tc.pausedMinutes > 0 {
			tc.s.Pause = Pause{Until: now.Add(time.Duration(tc.pausedMinutes) * time.Minute)}
		}
		if got := StatusLine(tc.s, now, berlin); got != tc.status {
			t.Errorf("StatusLine = %q, want %q", got, tc.status)
		}
		if got := Tooltip(tc.s, now, berlin); got != tc.tip {
			t.Errorf("Tooltip = %q, want %q", got, tc.tip)
		}
	}
}

// The three pauses, how the status line says them, and Resume in the
// menu while one lasts.
func TestPause(t *testing.T) {
	hour := PauseFor(PauseHour, now, berlin)
	if !hour.Until.Equal(now.Add(time.Hour)) || hour.Forever {
		t.Errorf("for 1 hour = %+v", hour)
	}
	tomorrow := PauseFor(PauseTomorrow, now, berlin)
	if want := time.Date(2026, 3, 6, 8, 0, 0, 0, berlin); !tomorrow.Until.Equal(want) {
		t.Errorf("until tomorrow = %v, want %v", tomorrow.Until, want)
	}
	forever := PauseFor(PauseForever, now, berlin)
	if !forever.Forever {
		t.Errorf("until resumed = %+v", forever)
	}
	if (PauseFor(Resume, now, berlin) != Pause{}) {
		t.Error("Resume gives a pause")
	}
	for _, tc := range []struct {
		p    Pause
		at   time.Time
		want string
	}{
		{hour, now, "notifications paused until 16:04"},
		{tomorrow, now, "notifications paused until tomorrow 08:00"},
		{tomorrow, now.Add(10 * time.Hour), "notifications paused until 08:00"}, // after midnight
		{Pause{Until: now.Add(72 * time.Hour)}, now, "notifications paused until Sun 8 Mar 15:04"},
		{forever, now, "notifications paused"},
		{hour, now.Add(time.Hour), ""}, // over
		{Pause{}, now, ""},
	} {
		if got := tc.p.Describe(tc.at, berlin); got != tc.want {
			t.Errorf("Describe(%+v at %v) = %q, want %q", tc.p, tc.at, got, tc.want)
		}
		if active := tc.p.Active(tc.at); active != (tc.want != "") {
			t.Errorf("Active(%+v at %v) = %v", tc.p, tc.at, active)
		}
	}
	s := busy()
	s.Pause = hour
	items := Build(s, now, berlin)
	if _, ok := find(items, LabelPause); ok {
		t.Error("Pause offered while paused")
	}
	if it, ok := find(items, LabelResume); !ok || it.Action.Kind != Resume {
		t.Errorf("no Resume while paused: %q", labels(items))
	}
	if got := labels(Build(s, now.Add(2*time.Hour), berlin)); !slices.Contains(got, LabelPause) || slices.Contains(got, LabelResume) {
		t.Errorf("after the pause ended: %q", got)
	}
	// Around a daylight saving change, tomorrow 08:00 is still 08:00.
	beforeDST := time.Date(2026, 3, 28, 22, 0, 0, 0, berlin)
	if got := TomorrowEnd(beforeDST, berlin); got.Hour() != 8 || got.Day() != 29 {
		t.Errorf("TomorrowEnd before DST = %v", got)
	}
}

// A peer's text cannot stretch the menu or act on it: names, subjects and
// commands are cut, on one line, with bidi and control characters escaped.
func TestLabelsBoundPeerText(t *testing.T) {
	long := strings.Repeat("x", 500)
	th := peer.ThreadInfo{Th: "thr_x", Peer: aliceK, PeerName: "ev\u202eil\nname" + long, Subject: "line one\nline two " + long, Unread: 1}
	l := ThreadLabel(th, nil)
	if strings.ContainsAny(l, "\n\u202e") || !strings.Contains(l, `ev\u202eil name`) {
		t.Errorf("thread label = %q", l)
	}
	if n := len([]rune(l)); n > MaxName+MaxSubject+10 {
		t.Errorf("thread label is %d characters", n)
	}
	r := peer.ApprovalRequest{ID: "x", Kind: peer.ApprovalProfile, From: aliceK, FromName: long, Caps: []string{"exec"},
		Detail: execDetail("rm", "-rf", "/\u202e", long)}
	l = ApprovalLabel(r, meK)
	if strings.Contains(l, "\u202e") || !strings.Contains(l, " wants exec `rm -rf") {
		t.Errorf("approval label = %q", l)
	}
	if n := len([]rune(l)); n > MaxName+MaxDetail+30 {
		t.Errorf("approval label is %d characters", n)
	}
	// Without a name, the start of the key; an fs request shows its path.
	r = peer.ApprovalRequest{ID: "y", Kind: peer.ApprovalProfile, From: bobK, Caps: []string{"fs:read"}, Detail: json.RawMessage(`{"path":"notes/todo.md"}`)}
	if l := ApprovalLabel(r, meK); l != "BBBBBBBB wants fs:read `notes/todo.md`" {
		t.Errorf("fs label = %q", l)
	}
}
