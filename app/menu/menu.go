// Package menu is the tray's menu, tooltip and icon state as pure
// functions of what the node holds: the tray process (app/tray) renders
// what Build returns, and tests check it without a tray host, a display
// or Fyne. Load reads that State from the node, for the tray process and
// the windows (whose status line is the menu's) alike.
//
// # What the menu answers
//
// "What needs me?": the status line (peers up of known, requests waiting,
// notifications paused and until when), then up to MaxThreads threads
// with unread lines (peer, subject, count; newest first) and every
// pending request ("alice wants exec `make test`"), then the windows,
// Copy my invite, Add peer…, Pause notifications (for 1 hour, until
// tomorrow 08:00, until resumed) or Resume, Settings, and a Quit that says
// the peer goes offline.
//
// Text a peer chose (names, subjects, commands) is cut short and every
// character that would not show as itself is escaped (internal/visible),
// so a name cannot reorder or hide the rest of a menu item.
package menu

import (
	"fmt"
	"strings"
	"time"

	"github.com/awp-tray/awp-tray/app/icon"
	"github.com/awp-tray/awp-tray/app/render"
	"github.com/awp-tray/awp-tray/internal/visible"
	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/key"
)

// Bounds of what the menu shows. A menu is read at a glance: a long name or
// subject would make it as wide as the screen.
const (
	// MaxThreads is how many unread threads the menu lists; more are
	// counted in one "N more unread threads…" item.
	MaxThreads = 5
	// MaxName bounds a peer's name in an item, in characters.
	MaxName = 24
	// MaxSubject bounds a thread's subject in an item.
	MaxSubject = 40
	// MaxDetail bounds the command or path of a request in an item.
	MaxDetail = 40
)

// Kind is what a menu item does.
type Kind int

// The menu's actions.
const (
	None          Kind = iota // a label (the status line)
	OpenThread                // open thread Th (mirrored from From) in its window
	OpenApproval              // open request ID in the Approvals window
	ShowThreads               // the main window: the thread list
	ShowPresence              // the Presence window
	ShowApprovals             // the Approvals window
	CopyInvite                // put my invite on the clipboard
	AddPeer                   // ask for an invite or an address
	PauseHour                 // pause notifications for PauseHourFor
	PauseTomorrow             // … until tomorrow at TomorrowAt
	PauseForever              // … until resumed
	Resume                    // resume notifications
	ShowSettings              // the Settings window
	Quit                      // quit: the peer goes offline
)

// Action is what a click on an item asks for.
type Action struct {
	Kind Kind
	Th   string        // OpenThread
	From key.PublicKey // OpenThread: the sharer of a mirrored thread
	ID   string        // OpenApproval
}

// Item is one menu item. A Separator has nothing else; an item with
// Children opens a submenu.
type Item struct {
	Label     string
	Disabled  bool
	Separator bool
	Children  []Item
	Action    Action
}

// Labels of the items that do not change.
const (
	LabelPresence    = "Presence"
	LabelInvite      = "Copy my invite"
	LabelAddPeer     = "Add peer…"
	LabelPause       = "Pause notifications"
	LabelPauseHour   = "For 1 hour"
	LabelPauseUntil  = "Until I resume them"
	LabelResume      = "Resume notifications"
	LabelSettings    = "Settings"
	LabelQuit        = "Quit (your peer goes offline)"
	labelThreads     = "Threads"
	labelApprovals   = "Approvals"
	labelTomorrowFmt = "Until tomorrow %s"
)

// State is what the menu reflects: the node's threads, peers and pending
// requests, whether it runs, and the notifications pause.
type State struct {
	Booted  bool   // the node runs
	Err     string // why it does not ("" while starting)
	Threads []peer.ThreadInfo
	Peers   []peer.PeerInfo
	Pending []peer.ApprovalRequest
	Self    key.PublicKey // my key (a request's On may name it)
	Pause   Pause
}

// Counts are the numbers the icon and the status line show.
type Counts struct {
	PeersUp, Peers   int
	Unread           int // unread lines over all threads
	UnreadThreads    int // threads with unread lines
	Approvals        int // requests waiting for a decision
	Booted, Starting bool
}

// Count sums up s.
func (s State) Count() Counts {
	c := Counts{Peers: len(s.Peers), Approvals: len(s.Pending), Booted: s.Booted, Starting: !s.Booted && s.Err == ""}
	for _, p := range s.Peers {
		if p.Up {
			c.PeersUp++
		}
	}
	for _, t := range s.Threads {
		if t.Unread > 0 {
			c.Unread += t.Unread
			c.UnreadThreads++
		}
	}
	return c
}

// Icon is what the tray icon shows of s.
func (s State) Icon() icon.State {
	c := s.Count()
	return icon.State{PeersUp: c.PeersUp, Unread: c.Unread, Approvals: c.Approvals}
}

// Build returns the menu for s at now (loc: the clock's time zone for the
// pause's end; nil means time.Local).
func Build(s State, now time.Time, loc *time.Location) []Item {
	c := s.Count()
	items := []Item{{Label: "AWP: " + StatusLine(s, now, loc), Disabled: true}}

	var needs []Item
	if s.Booted {
		needs = append(needs, unreadItems(s)...)
		for _, r := range s.Pending {
			needs = append(needs, Item{Label: ApprovalLabel(r, s.Self), Action: Action{Kind: OpenApproval, ID: r.ID}})
		}
	}
	if len(needs) > 0 {
		items = append(items, Item{Separator: true})
		items = append(items, needs...)
	}

	items = append(items,
		Item{Separator: true},
		Item{Label: ThreadsLabel(c.Unread), Action: Action{Kind: ShowThreads}},
		Item{Label: LabelPresence, Action: Action{Kind: ShowPresence}},
		Item{Label: ApprovalsLabel(c.Approvals), Action: Action{Kind: ShowApprovals}},
		Item{Separator: true},
		Item{Label: LabelInvite, Action: Action{Kind: CopyInvite}, Disabled: !s.Booted},
		Item{Label: LabelAddPeer, Action: Action{Kind: AddPeer}, Disabled: !s.Booted},
	)
	if s.Pause.Active(now) {
		items = append(items, Item{Label: LabelResume, Action: Action{Kind: Resume}})
	} else {
		items = append(items, Item{Label: LabelPause, Children: []Item{
			{Label: LabelPauseHour, Action: Action{Kind: PauseHour}},
			{Label: fmt.Sprintf(labelTomorrowFmt, clock(TomorrowEnd(now, loc))), Action: Action{Kind: PauseTomorrow}},
			{Label: LabelPauseUntil, Action: Action{Kind: PauseForever}},
		}})
	}
	items = append(items,
		Item{Label: LabelSettings, Action: Action{Kind: ShowSettings}},
		Item{Separator: true},
		Item{Label: LabelQuit, Action: Action{Kind: Quit}},
	)
	return items
}

// unreadItems are the newest MaxThreads threads with unread lines, and an
// item counting the others.
func unreadItems(s State) []Item {
	var unread []peer.ThreadInfo
	for _, t := range s.Threads {
		if t.Unread > 0 {
			unread = append(unread, t)
		}
	}
	render.SortThreads(unread)
	names := peerNames(s.Peers)
	var out []Item
	for i, t := range unread {
		if i == MaxThreads {
			n := len(unread) - MaxThreads
			out = append(out, Item{Label: fmt.Sprintf("%d more unread %s…", n, plural(n, "thread", "threads")),
				Action: Action{Kind: ShowThreads}})
			break
		}
		out = append(out, Item{Label: ThreadLabel(t, names), Action: Action{Kind: OpenThread, Th: t.Th, From: t.MirroredFrom}})
	}
	return out
}

// peerNames maps keys to names.
func peerNames(ps []peer.PeerInfo) map[key.PublicKey]string {
	m := make(map[key.PublicKey]string, len(ps))
	for _, p := range ps {
		if p.Name != "" {
			m[p.Key] = p.Name
		}
	}
	return m
}

// clip makes a peer's text fit an item: one line, every character that
// would not show as itself escaped, at most n characters.
func clip(s string, n int) string { return render.Clip(visible.String(s), n) }

// ThreadLabel is an unread thread's item: "alice: Port the auth
// middleware (3)". names gives peer names by key, for a thread whose info
// lacks one.
func ThreadLabel(t peer.ThreadInfo, names map[key.PublicKey]string) string {
	who := t.PeerName
	if who == "" {
		who = names[t.Peer]
	}
	if who == "" {
		who = render.ShortKey(t.Peer.String())
	}
	subj := t.Subject
	if subj == "" {
		subj = "(no subject)"
	}
	return fmt.Sprintf("%s: %s (%d)", clip(who, MaxName), clip(subj, MaxSubject), t.Unread)
}

// ApprovalLabel is a pending request's item: "alice wants exec `make
// test`", "alice wants fs:read `notes/todo.md`", "alice asks for a grant:
// exec". self is my key.
func ApprovalLabel(r peer.ApprovalRequest, self key.PublicKey) string {
	who := r.FromName
	if who == "" {
		who = render.ShortKey(r.From.String())
	}
	who = clip(who, MaxName)
	caps := clip(strings.Join(r.Caps, ", "), MaxDetail)
	if r.Kind == peer.ApprovalGrantRequest {
		return who + " asks for a grant: " + caps
	}
	s := who + " wants " + caps
	for _, f := range render.DescribeApproval(r, self, nil).Fields {
		if f.Label == "command" || f.Label == "path" {
			return s + " `" + render.Clip(f.Value, MaxDetail) + "`"
		}
	}
	return s
}

// ThreadsLabel is the Threads item: "Threads (3 unread)".
func ThreadsLabel(unread int) string {
	if unread > 0 {
		return fmt.Sprintf("%s (%d unread)", labelThreads, unread)
	}
	return labelThreads
}

// ApprovalsLabel is the Approvals item: "Approvals (1 pending)".
func ApprovalsLabel(n int) string {
	if n > 0 {
		return fmt.Sprintf("%s (%d pending)", labelApprovals, n)
	}
	return labelApprovals
}

// StatusLine is the node's state in one line, without the "AWP: " of the
// menu: "2/3 peers up · 1 waiting for you · notifications paused until
// 16:45", "offline: 0/2 peers up", "starting…", "not running: …".
func StatusLine(s State, now time.Time, loc *time.Location) string {
	return strings.Join(statusParts(s, now, loc, false), " · ")
}

// Tooltip is the icon's tooltip: the status line with the unread count.
func Tooltip(s State, now time.Time, loc *time.Location) string {
	return "AWP: " + strings.Join(statusParts(s, now, loc, true), " · ")
}

func statusParts(s State, now time.Time, loc *time.Location, unread bool) []string {
	c := s.Count()
	var parts []string
	switch {
	case s.Err != "":
		parts = append(parts, "not running: "+s.Err)
	case !s.Booted:
		parts = append(parts, "starting…")
	case c.Peers == 0:
		parts = append(parts, "no peers yet")
	case c.PeersUp == 0:
		parts = append(parts, fmt.Sprintf("offline: 0/%d %s up", c.Peers, plural(c.Peers, "peer", "peers")))
	default:
		parts = append(parts, fmt.Sprintf("%d/%d %s up", c.PeersUp, c.Peers, plural(c.Peers, "peer", "peers")))
	}
	if s.Booted && unread && c.Unread > 0 {
		parts = append(parts, fmt.Sprintf("%d unread in %d %s", c.Unread, c.UnreadThreads, plural(c.UnreadThreads, "thread", "threads")))
	}
	if s.Booted && c.Approvals > 0 {
		parts = append(parts, fmt.Sprintf("%d waiting for you", c.Approvals))
	}
	if p := s.Pause.Describe(now, loc); p != "" {
		parts = append(parts, p)
	}
	return parts
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
