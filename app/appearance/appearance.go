// Package appearance tells whether the desktop is light or dark, and
// follows it, so that the tray icon is drawn for the panel it sits on
// (icon.PanelDark or icon.PanelLight).
//
// # Basics
//
// Watch reads the desktop's color scheme and calls a function whenever it
// changes. Where it comes from:
//
//   - Linux and the BSDs: the freedesktop settings portal
//     (org.freedesktop.portal.Settings on the session bus, key
//     org.freedesktop.appearance color-scheme), and its SettingChanged
//     signal. GNOME, KDE Plasma, Xfce (through xdg-desktop-portal-gtk)
//     and Cinnamon answer it.
//   - Windows: the task bar's theme, HKCU\Software\Microsoft\Windows\
//     CurrentVersion\Themes\Personalize SystemUsesLightTheme (not
//     AppsUseLightTheme: the task bar can be dark while apps are light),
//     followed with RegNotifyChangeKeyValue.
//   - macOS: the menu bar's style, `defaults read -g AppleInterfaceStyle`,
//     read again when the global preferences file changes.
//   - elsewhere: no preference.
//
// Mode is the person's choice in Settings: auto (follow the desktop),
// light or dark. Mode.Panel turns a mode and a scheme into the icon's
// variant. On GNOME Shell the top bar is dark in both styles, so auto
// draws for a dark panel there whatever the scheme says.
//
// It owns reading the desktop's preference; it must not draw icons or
// touch the UI (the tray decides what to do with a change).
package appearance

import (
	"context"
	"fmt"
	"strings"

	"github.com/awp-tray/awp-tray/app/icon"
)

// Scheme is the desktop's color scheme. Its values are the settings
// portal's.
type Scheme uint8

// The schemes.
const (
	NoPreference Scheme = 0
	Dark         Scheme = 1
	Light        Scheme = 2
)

// String returns "no preference", "dark" or "light".
func (s Scheme) String() string {
	switch s {
	case Dark:
		return "dark"
	case Light:
		return "light"
	}
	return "no preference"
}

// Mode is how the tray icon's variant is chosen: the Settings override.
type Mode string

// The modes.
const (
	ModeAuto  Mode = "auto"  // follow the desktop
	ModeLight Mode = "light" // always the icon for a light panel
	ModeDark  Mode = "dark"  // always the icon for a dark panel
)

// Modes lists the modes in the order Settings offers them.
var Modes = []Mode{ModeAuto, ModeLight, ModeDark}

// ParseMode parses a mode; "" is ModeAuto.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(strings.ToLower(strings.TrimSpace(s))); m {
	case "":
		return ModeAuto, nil
	case ModeAuto, ModeLight, ModeDark:
		return m, nil
	}
	return ModeAuto, fmt.Errorf("appearance: tray icon %q: want auto, light or dark", s)
}

// Panel returns the icon variant for mode m when the desktop's scheme is
// s. desktop is $XDG_CURRENT_DESKTOP (a colon-separated list, e.g.
// "ubuntu:GNOME"). With ModeAuto: a light scheme draws for a light panel,
// except on GNOME Shell, whose top bar is dark in both styles; a dark
// scheme or none draws for a dark panel (most panels are dark).
func (m Mode) Panel(s Scheme, desktop string) icon.Panel {
	switch m {
	case ModeLight:
		return icon.PanelLight
	case ModeDark:
		return icon.PanelDark
	}
	if s != Light {
		return icon.PanelDark
	}
	for _, d := range strings.Split(desktop, ":") {
		if strings.EqualFold(d, "GNOME") {
			return icon.PanelDark
		}
	}
	return icon.PanelLight
}

// Watch reads the desktop's scheme and then calls changed, from a
// goroutine of its own, each time it changes, until ctx ends. When the
// scheme cannot be read (no session bus, no portal, no registry value)
// it returns NoPreference and the reason; on Linux it still watches, for
// a settings portal that starts later.
func Watch(ctx context.Context, changed func(Scheme)) (Scheme, error) {
	return watch(ctx, changed)
}

// parseDefaults reads the output of `defaults read -g
// AppleInterfaceStyle` (macOS): "Dark" in the dark style.
func parseDefaults(out string) Scheme {
	if strings.EqualFold(strings.TrimSpace(out), "dark") {
		return Dark
	}
	return Light
}
