//go:build linux || freebsd || openbsd || netbsd || dragonfly

package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/awp-tray/awp-tray/app/uilink"
	"github.com/awp-tray/awp-tray/notify"
)

// fallbackTimeout bounds one plain notification.
const fallbackTimeout = 5 * time.Second

// notifyFallback shows a plain notification (title and body) when the
// notification server lacks actions: over the same D-Bus connection,
// without actions. Without a session bus nothing can show one here (Fyne's
// would use D-Bus too): nil.
func notifyFallback(db *notify.DBusBackend, _ *uilink.Launcher, log *slog.Logger) func(title, body string) {
	if db == nil {
		return nil
	}
	return func(title, body string) {
		ctx, cancel := context.WithTimeout(context.Background(), fallbackTimeout)
		defer cancel()
		if _, err := db.Notify(ctx, notify.Notification{AppName: "AWP", Title: title, Body: body, DesktopEntry: appID}); err != nil {
			log.Debug("plain notification", "err", err)
		}
	}
}
