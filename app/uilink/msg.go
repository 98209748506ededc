// Package uilink is the line between the tray process and its UI process.
//
// The tray process holds the node, the tray icon and menu, and
// notifications; it runs no Fyne and no GL, so it costs nothing while
// nothing happens. Windows run in a UI process (the same binary, started
// with --ui) that the tray starts when a window is wanted; it talks to the
// node over the local API, and exits a while after its last window closed.
// This package carries what the two say to each other: one JSON object
// (Msg) per line, over a unix socket pair that is the UI process's fd 3.
//
// # Protocol
//
// The tray sends "init" first, then the state every UI needs ("pause",
// "boot"), then commands. Each command carries a Seq and the UI answers
// "ack" once it has carried it out (shown the window); a command a UI
// process did not ack before it ended is sent again to a new one, so a
// click that meets a UI process on its way out is not lost. The UI tells
// the tray which thread window is in front ("focus"), a pause chosen in
// Settings ("pause"), the answer to the keyring question ("filekey") and
// that the person quit ("quit").
//
// Launcher is the tray's side: it starts UI processes on demand and
// resends unacked commands, within a restart budget. Conn is a line, for
// both sides.
package uilink

import (
	"github.com/awp-tray/awp-tray/app/menu"
	"github.com/awp-tray/awp-tray/peer/key"
)

// Ops from the tray to the UI.
const (
	OpInit  = "init"  // Init: who the UI is for (first message)
	OpPause = "pause" // Pause: the notifications pause now (both ways)
	OpBoot  = "boot"  // State: the node is starting, ready, failed or waits for the keyring answer

	// Commands (acked).
	OpShow      = "show"      // the main window (threads)
	OpThread    = "thread"    // Th, From: a thread's window
	OpApprovals = "approvals" // the Approvals window, at request ID if set
	OpPresence  = "presence"  // the Presence window
	OpSettings  = "settings"  // the Settings window
	OpAddPeer   = "addpeer"   // ask for an invite or address
	OpInvite    = "invite"    // copy my invite to the clipboard
	OpNotify    = "notify"    // Title, Text: a plain notification (platforms without D-Bus)

	OpQuit = "quit" // the UI quits (tray → UI); the app quits (UI → tray)
)

// Ops from the UI to the tray.
const (
	OpAck     = "ack"     // Seq: the command was carried out
	OpFocus   = "focus"   // Th, From: the thread window in front ("": none)
	OpFileKey = "filekey" // OK: keep the identity in a file (false: quit)
)

// Boot states (Msg.State of OpBoot).
const (
	BootStarting = "starting"
	BootReady    = "ready"   // OK: the identity is kept in a file
	BootFailed   = "failed"  // Text: why
	BootKeyring  = "keyring" // Text: why the keyring failed; the UI asks about a file
)

// Msg is one message. Which fields are set depends on Op.
type Msg struct {
	Op    string        `json:"op"`
	Seq   uint64        `json:"seq,omitempty"`
	Th    string        `json:"th,omitempty"`
	From  key.PublicKey `json:"from,omitzero"`
	ID    string        `json:"id,omitempty"`
	State string        `json:"state,omitempty"`
	Title string        `json:"title,omitempty"`
	Text  string        `json:"text,omitempty"`
	OK    bool          `json:"ok,omitempty"`
	Pause *menu.Pause   `json:"pause,omitempty"`
	Init  *Init         `json:"init,omitempty"`
}

// IsCommand reports whether m is a command: queued, acked and resent.
func (m Msg) IsCommand() bool {
	switch m.Op {
	case OpShow, OpThread, OpApprovals, OpPresence, OpSettings, OpAddPeer, OpInvite, OpNotify:
		return true
	}
	return false
}

// Init tells a UI process whom it serves.
type Init struct {
	DataDir string   `json:"data_dir"`
	Listen  []string `json:"listen,omitempty"` // asked for (--listen), until the node says
	// ExecArgs are the flags the login autostart entry repeats.
	ExecArgs []string `json:"exec_args,omitempty"`
	// NoTray says why there is no system tray ("" with one): the main
	// window is the app then, closing it quits, and the UI does not exit
	// when idle.
	NoTray string `json:"no_tray,omitempty"`
}
