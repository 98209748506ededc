// Package app is the tray app's windows: the main window (threads), a
// window per thread, presence, approvals and settings. It runs in the UI
// process, which the tray process (app/tray) starts when a window is
// wanted; the tray icon, its menu and notifications are not here. It is a
// thin skin over the node.
//
// # Basics
//
// New builds an App from a fyne.App and Options; ServeLink carries out
// what the tray process says (open a window, the node is ready, the
// notifications pause) and reports back (the thread in front, a pause
// chosen in Settings, the keyring answer, quit); Run runs the Fyne loop.
// Everything the windows show comes from the Backend (a localapi.Remote
// over the node's control socket) and its events. The App counts the
// windows shown and quits Options.Linger after the last one closed, so the
// GL driver's polling does not run while nobody looks.
//
// # Threading
//
// Backend calls go over a socket, so they never run on the UI goroutine:
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
// It owns what the person sees and clicks in windows, and when
// widgets change (always inside fyne.Do). It must not read the store or the
// wire itself, call the node on the UI goroutine, or keep copies of node
// state beyond what it shows: the node is the truth, reached only through
// Backend and its events.
package app
