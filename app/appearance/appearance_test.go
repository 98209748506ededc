package appearance

import (
	"testing"

	"github.com/awp-tray/awp-tray/app/icon"
)

func TestModePanel(t *testing.T) {
	for _, tc := range []struct {
		m       Mode
		s       Scheme
		desktop string
		want    icon.Panel
	}{
		{ModeAuto, Light, "KDE", icon.PanelLight},
		{ModeAuto, Light, "XFCE", icon.PanelLight},
		{ModeAuto, Dark, "KDE", icon.PanelDark},
		{ModeAuto, NoPreference, "KDE", icon.PanelDark},
		{ModeAuto, NoPreference, "", icon.PanelDark},
		{ModeAuto, Light, "ubuntu:GNOME", icon.PanelDark}, // GNOME Shell's top bar is dark in both styles
		{ModeAuto, Light, "GNOME-Classic:GNOME", icon.PanelDark},
		{ModeAuto, Light, "GNOME-Flashback", icon.PanelLight},
		{ModeLight, Dark, "GNOME", icon.PanelLight},
		{ModeDark, Light, "KDE", icon.PanelDark},
	} {
		if got := tc.m.Panel(tc.s, tc.desktop); got != tc.want {
			t.Errorf("%s.Panel(%s, %q) = %s, want %s", tc.m, tc.s, tc.desktop, got, tc.want)
		}
	}
}

func TestParseMode(t *testing.T) {
	for in, want := range map[string]Mode{"": ModeAuto, "auto": ModeAuto, " Light ": ModeLight, "DARK": ModeDark} {
		if got, err := ParseMode(in); err != nil || got != want {
			t.Errorf("ParseMode(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ParseMode("sepia"); err == nil {
		t.Error("ParseMode(sepia) accepted")
	}
}

func TestParseDefaults(t *testing.T) {
	if parseDefaults("Dark\n") != Dark || parseDefaults("Light") != Light || parseDefaults("") != Light {
		t.Error("parseDefaults")
	}
}
