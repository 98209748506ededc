package app

import (
	"errors"
	"slices"
	"time"

	"fyne.io/fyne/v2"

	"github.com/awp-tray/awp-tray/app/menu"
	"github.com/awp-tray/awp-tray/internal/burst"
	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/key"
)

// dirtyMask says which views must reload from the node.
type dirtyMask uint8

const (
	dirtyThreads   dirtyMask = 1 << iota // thread list and unread count
	dirtyPeers                           // presence and peers-up count
	dirtyApprovals                       // pending approvals
	dirtySettings                        // node settings
	dirtyAll       = dirtyThreads | dirtyPeers | dirtyApprovals | dirtySettings
)

// work is what one batch of events made stale.
type work struct {
	mask    dirtyMask
	threads map[threadKey]bool     // open thread views to update: true for a full reload
	prompt  []peer.ApprovalRequest // new approvals to bring forward
	notes   []string               // status notes (dial errors)
}

// thread marks an open thread view stale (full: read it whole again).
func (w *work) thread(th string, from key.PublicKey, full bool) {
	if th == "" {
		return
	}
	if w.threads == nil {
		w.threads = map[threadKey]bool{}
	}
	k := threadKey{th, from}
	w.threads[k] = w.threads[k] || full
}

// classify records what ev makes stale.
func (w *work) classify(ev peer.Event) {
	thread := w.thread
	switch ev.Type {
	case peer.EventLine:
		w.mask |= dirtyThreads
		var from key.PublicKey
		if ev.Line != nil {
			from = ev.Line.MirroredFrom
		}
		thread(ev.Th, from, false) // new lines only
	case peer.EventAck:
		thread(ev.Th, key.PublicKey{}, true) // delivery marks of earlier lines change
	case peer.EventThread:
		w.mask |= dirtyThreads // metadata: the open view gets it via setThreads
	case peer.EventBlob:
		if ev.Blob != nil {
			thread(ev.Blob.Th, key.PublicKey{}, false) // blob progress is read with the new lines
		}
	case peer.EventPeerUp, peer.EventPeerDown, peer.EventPresence:
		w.mask |= dirtyPeers | dirtyThreads // thread rows show peer names
	case peer.EventApproval:
		w.mask |= dirtyApprovals
		if ev.Approval != nil {
			w.prompt = append(w.prompt, *ev.Approval)
		}
	case peer.EventApprovalDone:
		w.mask |= dirtyApprovals
	case peer.EventDialError:
		w.notes = append(w.notes, dialNotice(ev))
	case peer.EventSettings:
		w.mask |= dirtySettings | dirtyThreads // mirror hosts: whether threads are mirrored
	}
}

// eventLoop reads events until the subscription ends, coalescing each
// burst into one refresh.
func (a *App) eventLoop(ch <-chan peer.Event) {
	for {
		var w work
		if !burst.Next(a.ctx, ch, w.classify) {
			return
		}
		a.apply(w)
	}
}

// namesChanged redraws, outside the home window, what shows peer names: a
// peer's name often arrives after the first things it did (its hello is
// stored while its first request is already on screen). UI goroutine.
func (a *App) namesChanged() {
	if a.approvals != nil {
		a.approvals.grantList.Refresh()
	}
	for _, tw := range a.threads {
		tw.setInfo(tw.info)
		tw.reload()
	}
}

// refresh reloads what mask names; from any goroutine but the UI's.
func (a *App) refresh(mask dirtyMask) { a.apply(work{mask: mask}) }

// apply does a batch's reads here (off the UI goroutine) and hands the
// results to the widgets with fyne.Do.
func (a *App) apply(w work) {
	be := a.backend()
	if be == nil {
		return
	}
	l := loaded{Read: menu.Load(be, w.mask.parts(), a.log)}
	if w.mask&dirtyThreads != 0 {
		l.hosts = keysText(be.MirrorHosts())
	}
	if w.mask&dirtyPeers != 0 {
		l.docs = be.Presence()
	}
	if w.mask&dirtyApprovals != 0 {
		l.history = be.ApprovalHistory()
		if l.grants, l.errG = be.Grants(); l.errG != nil {
			a.log.Error("grants", "err", l.errG)
		}
	}
	a.mu.Lock()
	l.Apply(&a.state)
	a.mu.Unlock()
	fyne.Do(func() { a.showLoaded(w, l) })
}

// parts names what the menu's state (the status line) takes of m.
func (m dirtyMask) parts() menu.Parts {
	var p menu.Parts
	if m&dirtyThreads != 0 {
		p |= menu.PartThreads
	}
	if m&dirtyPeers != 0 {
		p |= menu.PartPeers
	}
	if m&dirtyApprovals != 0 {
		p |= menu.PartPending
	}
	return p
}

// loaded is what apply read from the node: the menu's parts, and what
// only the windows show.
type loaded struct {
	menu.Read
	hosts   []string // mirror hosts, read with the threads
	docs    []peer.PresenceInfo
	grants  []peer.GrantInfo
	history []peer.ApprovalRecord
	errG    error
}

// showLoaded hands what apply read to the widgets. UI goroutine.
func (a *App) showLoaded(w work, l loaded) {
	if w.mask&dirtyThreads != 0 && l.ErrThreads == nil {
		a.mirrorHosts = l.hosts
		a.main.setThreads(mirroredTruly(l.Threads, l.hosts))
		if a.presence != nil && w.mask&dirtyPeers == 0 {
			a.presence.rebuild() // the cards name the threads
		}
	}
	if w.mask&dirtyPeers != 0 && l.ErrPeers == nil {
		if a.main.setPeers(l.Peers) {
			a.namesChanged()
		}
		if a.presence != nil {
			a.presence.setPeers(l.Peers)
			a.presence.setDocs(l.docs)
		}
	}
	if w.mask&dirtyApprovals != 0 && a.approvals != nil {
		a.approvals.setPending(l.Pending)
		a.approvals.setHistory(l.history)
		if l.errG == nil {
			a.approvals.setGrants(l.grants)
		}
		if id := a.wantApproval; id != "" {
			a.wantApproval = ""
			a.approvals.show(id)
		}
	}
	if w.mask&dirtySettings != 0 && a.settings != nil {
		a.settings.reload()
	}
	for k, full := range w.threads {
		if tw := a.threads[k]; tw != nil {
			tw.load(full)
		}
	}
	for _, n := range w.notes {
		a.main.setNotice(n)
	}
	if len(w.prompt) > 0 {
		a.promptApproval(w.prompt[len(w.prompt)-1])
	}
	a.updateStatus()
}

// counts returns what the windows show, summed up.
func (a *App) counts() menu.Counts {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.state.Count()
}

// updateStatus shows the node's state in the main window: the tray's
// status line (app/menu), with the pause the tray reported. UI goroutine.
func (a *App) updateStatus() {
	a.mu.Lock()
	s := a.state
	a.mu.Unlock()
	s.Err, s.Pause = a.bootErr, a.pause
	a.status = menu.StatusLine(s, time.Now(), nil)
	a.main.setStatus(a.status)
}

// mirroredTruly says a thread is mirrored only when there is a host to
// mirror it to: the node's Mirror is the thread's switch ("mirroring"
// showed on every thread of a node with no mirror host).
func mirroredTruly(ts []peer.ThreadInfo, hosts []string) []peer.ThreadInfo {
	if len(hosts) > 0 {
		return ts
	}
	out := slices.Clone(ts)
	for i := range out {
		out[i].Mirror = false
	}
	return out
}

// dialNotice says which address could not be reached (the event's Of; it
// named an empty key before) and why, in words (plainError).
func dialNotice(ev peer.Event) string {
	who := ev.Of
	if !ev.Peer.IsZero() {
		who = ev.Peer.Short() + " at " + ev.Of
	}
	return "Could not reach " + who + ". " + plainError(errors.New(ev.Err))
}
