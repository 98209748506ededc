// Package app is the tray app's user interface: the tray icon and menu,
// the main window (threads), a window per thread, presence, approvals and
// settings. It is a thin skin over the node.
//
// # Basics
//
// New builds an App from a fyne.App and Options; Run detects a tray host,
// sets up the tray (or shows the main window when there is none), boots
// the node off the UI goroutine through Options.Boot, and runs the Fyne
// loop. Everything the UI shows comes from the Backend (a *peer.Node) and
// its events.
//
// # Threading
//
// Backend calls read the store, so they never run on the UI goroutine:
// views call them from background goroutines (App.background) and hand
// the results to widgets with fyne.Do. Events are read by one goroutine
// that marks what is stale (threads, peers, approvals, one thread's
// lines) and refreshes it in one batch, so a burst of 10,000 lines costs
// a few reloads, not 10,000.
//
// # The node
//
// The UI depends on one interface, Backend (= localapi.Backend): what the
// node offers, whole. There are no optional parts and no type assertions
// on it; a feature the UI shows is one the node has.
//
// It owns what the person sees and clicks: windows, the tray, and when
// widgets change (always inside fyne.Do). It must not read the store or the
// wire itself, call the node on the UI goroutine, or keep copies of node
// state beyond what it shows: the node is the truth, reached only through
// Backend and its events.
package app
