package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"image/png"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/awp-tray/awp-tray/app/autostart"
	"github.com/awp-tray/awp-tray/app/icon"
)

// staged lays out the tree with two fake programs.
func staged(t *testing.T) string {
	t.Helper()
	bin, root := t.TempDir(), t.TempDir()
	for _, b := range []string{"awp-tray", "awp"} {
		if err := os.WriteFile(filepath.Join(bin, b), []byte("#!/bin/sh\necho "+b+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	metainfo := filepath.Join("..", "..", "..", "packaging", "linux", autostart.AppID+".metainfo.xml")
	if err := stage(root, "/usr", bin, metainfo, true); err != nil {
		t.Fatal(err)
	}
	return root
}

func tool(t *testing.T, name, pkg string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Skipf("%s not installed (apt-get install %s)", name, pkg)
	}
	return p
}

// TestTreeValidates runs the freedesktop validators on the staged tree:
// desktop-file-validate on the launcher and the login entry, appstreamcli
// on the metainfo (alone and with the tree); and checks that the names
// meet: the metainfo's id and launchable, the desktop entry's file name
// and Icon=, the icon files, each PNG of its directory's size.
func TestTreeValidates(t *testing.T) {
	root := staged(t)
	usr := filepath.Join(root, "usr")
	launcher := filepath.Join(usr, "share", "applications", autostart.FileName)
	login := filepath.Join(root, "etc", "xdg", "autostart", autostart.FileName)
	metainfo := filepath.Join(usr, "share", "metainfo", autostart.AppID+".metainfo.xml")

	dfv := tool(t, "desktop-file-validate", "desktop-file-utils")
	for _, p := range []string{launcher, login} {
		if out, err := exec.Command(dfv, p).CombinedOutput(); err != nil || len(out) > 0 {
			t.Errorf("desktop-file-validate %s: %v\n%s", p, err, out)
		}
	}
	as := tool(t, "appstreamcli", "appstream")
	for _, args := range [][]string{{"validate", "--no-net", metainfo}, {"validate-tree", "--no-net", root}} {
		out, err := exec.Command(as, args...).CombinedOutput()
		if err != nil {
			t.Errorf("appstreamcli %s: %v\n%s", args[0], err, out)
		}
		for _, line := range strings.Split(string(out), "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "W:") || strings.HasPrefix(strings.TrimSpace(line), "E:") {
				t.Errorf("appstreamcli %s: %s", args[0], line)
			}
		}
	}

	var mi struct {
		ID         string   `xml:"id"`
		Launchable string   `xml:"launchable"`
		Binaries   []string `xml:"provides>binary"`
	}
	b, err := os.ReadFile(metainfo)
	if err != nil {
		t.Fatal(err)
	}
	if err := xml.Unmarshal(b, &mi); err != nil {
		t.Fatal(err)
	}
	if mi.ID != autostart.AppID || mi.Launchable != autostart.FileName || strings.Join(mi.Binaries, ",") != "awp-tray,awp" {
		t.Errorf("metainfo: id %q, launchable %q, binaries %q", mi.ID, mi.Launchable, mi.Binaries)
	}
	d, _ := os.ReadFile(launcher)
	if !strings.Contains(string(d), "\nIcon="+autostart.AppID+"\n") || !strings.Contains(string(d), "\nExec=awp-tray\n") {
		t.Errorf("launcher:\n%s", d)
	}
	for _, s := range icon.HicolorSizes {
		p := filepath.Join(usr, "share", "icons", "hicolor", fmt.Sprintf("%dx%d", s, s), "apps", autostart.AppID+".png")
		f, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := png.DecodeConfig(bytes.NewReader(f))
		if err != nil || cfg.Width != s || cfg.Height != s {
			t.Errorf("%s: %dx%d, %v", p, cfg.Width, cfg.Height, err)
		}
	}
	if _, err := os.Stat(filepath.Join(usr, "share", "icons", "hicolor", "scalable", "apps", autostart.AppID+".svg")); err != nil {
		t.Error(err)
	}
}

// TestMakeInstall installs the staged tree with the tarball's Makefile
// (system-wide into a prefix, for one user into a home), checks the unit
// with systemd-analyze verify against the installed awp, enables the
// login entry, and uninstalls everything again.
func TestMakeInstall(t *testing.T) {
	mk := tool(t, "make", "make")
	root := staged(t)
	mf, err := os.ReadFile(filepath.Join("..", "..", "..", "packaging", "linux", "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "Makefile"), mf, 0o644); err != nil {
		t.Fatal(err)
	}
	prefix, home := filepath.Join(t.TempDir(), "prefix"), t.TempDir()
	run := func(args ...string) {
		t.Helper()
		cmd := exec.Command(mk, append([]string{"-C", root}, args...)...)
		cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "PATH="+filepath.Join(prefix, "bin")+":/usr/bin:/bin")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("make %v: %v\n%s", args, err, out)
		}
	}
	run("install", "PREFIX="+prefix)
	unit := filepath.Join(prefix, "lib", "systemd", "user", "awp.service")
	u, err := os.ReadFile(unit)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(u), "\nExecStart="+prefix+"/bin/awp run\n") {
		t.Errorf("installed unit:\n%s", u)
	}
	if sa, err := exec.LookPath("systemd-analyze"); err == nil {
		cmd := exec.Command(sa, "--user", "verify", unit)
		cmd.Env = append(os.Environ(), "XDG_RUNTIME_DIR="+t.TempDir())
		if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
			t.Errorf("systemd-analyze verify: %v\n%s", err, out)
		}
	}
	if fi, err := os.Stat(filepath.Join(prefix, "bin", "awp-tray")); err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("awp-tray: %v %v", fi, err)
	}
	run("user-autostart", "PREFIX="+prefix)
	entry := filepath.Join(home, ".config", "autostart", autostart.FileName)
	e, err := os.ReadFile(entry)
	if err != nil {
		t.Fatal(err)
	}
	want := autostart.DesktopFile(autostart.App(filepath.Join(prefix, "bin", "awp-tray"), nil))
	if string(e) != want {
		t.Errorf("login entry:\n%s\nwant what Settings writes:\n%s", e, want)
	}
	if !autostart.Enabled(filepath.Dir(entry)) {
		t.Error("autostart.Enabled does not see the entry")
	}
	run("user-autostart-off")
	if autostart.Enabled(filepath.Dir(entry)) {
		t.Error("user-autostart-off left the entry")
	}
	run("uninstall", "PREFIX="+prefix)
	if left := files(t, prefix); len(left) > 0 {
		t.Errorf("uninstall left %q", left)
	}

	run("user-install")
	local := filepath.Join(home, ".local")
	if d, _ := os.ReadFile(filepath.Join(local, "share", "applications", autostart.FileName)); !strings.Contains(string(d), "\nExec="+local+"/bin/awp-tray\n") {
		t.Errorf("user launcher:\n%s", d)
	}
	if u, _ := os.ReadFile(filepath.Join(local, "share", "systemd", "user", "awp.service")); !strings.Contains(string(u), "\nExecStart="+local+"/bin/awp run\n") {
		t.Errorf("user unit:\n%s", u)
	}
	run("user-uninstall")
	if left := files(t, local); len(left) > 0 {
		t.Errorf("user-uninstall left %q", left)
	}
}

// files lists the regular files under dir.
func files(t *testing.T, dir string) []string {
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// TestFlatpakManifest reads the Flatpak manifest (YAML, through python3's
// yaml when there is one, else skipped) and checks what a build here
// cannot: the app id, the D-Bus names the tray, notifications and the
// keyring need, the data directory shared with the host's awp, and that
// what the build commands run exists.
func TestFlatpakManifest(t *testing.T) {
	py := tool(t, "python3", "python3-yaml")
	path := filepath.Join("..", "..", "..", "packaging", "flatpak", autostart.AppID+".yml")
	out, err := exec.Command(py, "-c", "import json, sys, yaml; print(json.dumps(yaml.safe_load(open(sys.argv[1]))))", path).Output()
	if err != nil {
		t.Skipf("python3 cannot read YAML here (apt-get install python3-yaml): %v", err)
	}
	var m struct {
		AppID      string   `json:"app-id"`
		Command    string   `json:"command"`
		FinishArgs []string `json:"finish-args"`
		Modules    []struct {
			BuildCommands []string `json:"build-commands"`
		} `json:"modules"`
	}
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatal(err)
	}
	if m.AppID != autostart.AppID || m.Command != "awp-tray" {
		t.Errorf("app-id %q, command %q", m.AppID, m.Command)
	}
	for _, want := range []string{
		"--talk-name=org.kde.StatusNotifierWatcher", "--talk-name=org.freedesktop.Notifications",
		"--talk-name=org.freedesktop.secrets", "--share=network", "--filesystem=xdg-config/awp:create",
		"--unset-env=XDG_CONFIG_HOME",
	} {
		if !slices.Contains(m.FinishArgs, want) {
			t.Errorf("finish-args lack %s", want)
		}
	}
	if len(m.Modules) != 1 {
		t.Fatalf("%d modules", len(m.Modules))
	}
	cmds := strings.Join(m.Modules[0].BuildCommands, "\n")
	for _, want := range []string{"-o /app/bin/awp-tray .", "-o /app/bin/awp ./cmd/awp", "./scripts/app/pkgtree -root / -prefix /app -no-etc"} {
		if !strings.Contains(cmds, want) {
			t.Errorf("build-commands lack %q:\n%s", want, cmds)
		}
	}
	// The staging it asks for works: the tree under a prefix, no etc/.
	root := t.TempDir()
	metainfo := filepath.Join("..", "..", "..", "packaging", "linux", autostart.AppID+".metainfo.xml")
	if err := stage(root, "/app", "", metainfo, false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "app", "share", "applications", autostart.FileName)); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat(filepath.Join(root, "etc")); !os.IsNotExist(err) {
		t.Error("-no-etc wrote etc/")
	}
}
