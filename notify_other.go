//go:build !(linux || freebsd || openbsd || netbsd || dragonfly)

package main

import (
	"log/slog"

	"github.com/awp-tray/awp-tray/app/uilink"
	"github.com/awp-tray/awp-tray/notify"
)

// notifyFallback shows a plain notification through the UI process (Fyne
// speaks the platform's notifications), which exits again a while later:
// macOS and Windows have no D-Bus server to carry actions.
func notifyFallback(_ *notify.DBusBackend, ui *uilink.Launcher, _ *slog.Logger) func(title, body string) {
	return func(title, body string) { ui.Send(uilink.Msg{Op: uilink.OpNotify, Title: title, Text: body}) }
}
