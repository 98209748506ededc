// Package autostart starts the tray app at login through an XDG autostart
// desktop entry ($XDG_CONFIG_HOME/autostart/dev.awp.tray.desktop), and
// renders the app's desktop entries: the launcher a package installs
// (Launcher) and the login entry (App), from one set of values, so the two
// agree.
//
// Enable writes the entry atomically (a temporary file renamed into
// place), Disable removes it, Enabled reports whether it is there. Every
// function takes the autostart directory, so tests use a temporary one;
// Dir gives the real one.
//
// On Windows the login entry is a value under the Run key and on macOS a
// LaunchAgent: see the platform files.
//
// It owns that one desktop entry and must not touch anything else in the
// user's configuration.
package autostart

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/awp-tray/awp-tray/internal/atomicfile"
	"github.com/awp-tray/awp-tray/internal/cmdline"
)

// AppID is the app's id: the desktop entry's name, the icon's name, the
// AppStream component id.
const AppID = "dev.awp.tray"

// FileName is the desktop entry's file name, after the app id.
const FileName = AppID + ".desktop"

// Entry describes what to start.
type Entry struct {
	Name        string   // shown in menus and session settings, e.g. "AWP"
	GenericName string   // what kind of app it is
	Comment     string   // one line about the app
	Exec        string   // the program: absolute in a login entry
	Args        []string // its arguments, e.g. --data DIR
	Icon        string   // icon name or absolute path; optional
	Categories  []string // menu categories (freedesktop registered names)
	Keywords    []string // search words
}

// app is what every entry of the app says (FyneApp.toml says the same;
// a test keeps them together).
var app = Entry{
	Name:        "AWP",
	GenericName: "Agent Wire Protocol",
	Comment:     "Talk to coding agents, see who is around, approve what they ask",
	Icon:        AppID,
	Categories:  []string{"Network", "Chat"},
	Keywords:    []string{"awp", "agents", "peer", "chat"},
}

// App is the app's login entry: it runs exec with args.
func App(exec string, args []string) Entry {
	e := app
	e.Exec, e.Args = exec, args
	return e
}

// Launcher renders the desktop entry a package installs in
// share/applications: the app's entry running exec (a name on $PATH, or
// a path), without the login keys.
func Launcher(exec string) string {
	e := app
	e.Exec = exec
	return render(e, false)
}

// Enabled reports whether dir holds the app's login entry (dir is what
// Dir returns, or a directory of a test's).
func Enabled(dir string) bool {
	if dir == RunKey {
		return runKeyEnabled()
	}
	_, err := os.Stat(filepath.Join(dir, entryName))
	return err == nil
}

// Enable writes the login entry into dir, creating dir if needed. It
// replaces an earlier entry atomically.
func Enable(dir string, e Entry) error {
	if !filepath.IsAbs(e.Exec) {
		return fmt.Errorf("autostart: program path %q is not absolute", e.Exec)
	}
	if dir == RunKey {
		return enableRunKey(e)
	}
	return writeEntry(dir, entryName, entryFile(e))
}

// Disable removes the login entry from dir; a missing entry is not an
// error.
func Disable(dir string) error {
	if dir == RunKey {
		return disableRunKey()
	}
	err := os.Remove(filepath.Join(dir, entryName))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("autostart: %w", err)
	}
	return nil
}

// errNoRunKey: RunKey was passed where there is no registry.
var errNoRunKey = errors.New("autostart: the Run key is Windows only")

// RunKey is what Dir returns on Windows: the login entry is the value
// dev.awp.tray under this registry key, not a file.
const RunKey = `HKCU\Software\Microsoft\Windows\CurrentVersion\Run`

// xdgDir is the XDG autostart directory: $XDG_CONFIG_HOME/autostart, by
// default ~/.config/autostart.
func xdgDir() (string, error) {
	if d := os.Getenv("XDG_CONFIG_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "autostart"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("autostart: %w", err)
	}
	return filepath.Join(home, ".config", "autostart"), nil
}

// writeEntry writes text into dir/name, creating dir if needed:
// atomically (a temporary file renamed into place).
func writeEntry(dir, name, text string) error {
	if err := atomicfile.WriteFile(dir, name, []byte(text), 0o644); err != nil {
		return fmt.Errorf("autostart: %w", err)
	}
	return nil
}

// DesktopFile renders the entry as a login (autostart) desktop entry.
func DesktopFile(e Entry) string { return render(e, true) }

// render writes a desktop entry; login adds the autostart keys.
func render(e Entry, login bool) string {
	var b strings.Builder
	b.WriteString("[Desktop Entry]\n")
	b.WriteString("Type=Application\n")
	fmt.Fprintf(&b, "Name=%s\n", escapeValue(e.Name))
	if e.GenericName != "" {
		fmt.Fprintf(&b, "GenericName=%s\n", escapeValue(e.GenericName))
	}
	if e.Comment != "" {
		fmt.Fprintf(&b, "Comment=%s\n", escapeValue(e.Comment))
	}
	fmt.Fprintf(&b, "Exec=%s\n", escapeValue(ExecLine(e.Exec, e.Args)))
	if e.Icon != "" {
		fmt.Fprintf(&b, "Icon=%s\n", escapeValue(e.Icon))
	}
	b.WriteString("Terminal=false\n")
	if len(e.Categories) > 0 {
		fmt.Fprintf(&b, "Categories=%s\n", list(e.Categories))
	}
	if len(e.Keywords) > 0 {
		fmt.Fprintf(&b, "Keywords=%s\n", list(e.Keywords))
	}
	if login {
		b.WriteString("X-GNOME-Autostart-enabled=true\n")
	}
	return b.String()
}

// list renders a desktop entry list value: items ending in ';', with ';'
// in an item escaped.
func list(items []string) string {
	var b strings.Builder
	for _, it := range items {
		b.WriteString(strings.ReplaceAll(escapeValue(it), ";", `\;`) + ";")
	}
	return b.String()
}

// ExecLine quotes a command line as the Desktop Entry Specification's Exec
// key wants it (before the value escaping of the file format): arguments
// with reserved characters are double-quoted, with ", `, $ and \ escaped
// inside, and % is doubled.
func ExecLine(prog string, args []string) string { return execQuoting.Join(prog, args) }

// execQuoting is the Exec key's quoting.
var execQuoting = cmdline.Quoting{
	Always:   strings.NewReplacer("%", "%%"),
	Reserved: " \t\n\"'\\><~|&;$*?#()`=",
	Inside:   strings.NewReplacer(`\`, `\\`, `"`, `\"`, "`", "\\`", `$`, `\$`),
}

// escapeValue escapes a string value for a desktop entry: backslash,
// newline, tab and carriage return.
func escapeValue(s string) string {
	r := strings.NewReplacer(`\`, `\\`, "\n", `\n`, "\t", `\t`, "\r", `\r`)
	return r.Replace(s)
}

// LaunchAgent renders the login entry as a macOS LaunchAgent property
// list (~/Library/LaunchAgents/dev.awp.tray.plist): launchd runs the
// program with its arguments at login.
func LaunchAgent(e Entry) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
	<key>Label</key>
	<string>` + AppID + `</string>
	<key>ProgramArguments</key>
	<array>
`)
	for _, a := range append([]string{e.Exec}, e.Args...) {
		b.WriteString("\t\t<string>")
		_ = xml.EscapeText(&b, []byte(a))
		b.WriteString("</string>\n")
	}
	b.WriteString(`	</array>
	<key>RunAtLoad</key>
	<true/>
	<key>ProcessType</key>
	<string>Interactive</string>
</dict>
</plist>
`)
	return b.String()
}

// CommandLine quotes a program and its arguments for Windows (the Run
// key's value), as the C runtime and CommandLineToArgvW split them: an
// argument with a space, a tab or a quote, or an empty one, in double
// quotes; backslashes doubled only before a quote.
func CommandLine(prog string, args []string) string {
	all := append([]string{prog}, args...)
	for i, a := range all {
		all[i] = windowsArg(a)
	}
	return strings.Join(all, " ")
}

func windowsArg(a string) string {
	if a != "" && !strings.ContainsAny(a, " \t\"") {
		return a
	}
	var b strings.Builder
	b.WriteByte('"')
	slashes := 0
	for _, r := range a {
		switch r {
		case '\\':
			slashes++
			continue
		case '"':
			b.WriteString(strings.Repeat(`\`, 2*slashes+1))
		default:
			b.WriteString(strings.Repeat(`\`, slashes))
		}
		slashes = 0
		b.WriteRune(r)
	}
	b.WriteString(strings.Repeat(`\`, 2*slashes)) // before the closing quote
	b.WriteByte('"')
	return b.String()
}
