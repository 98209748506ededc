// Package autostart starts the tray app at login through an XDG autostart
// desktop entry ($XDG_CONFIG_HOME/autostart/dev.awp.tray.desktop).
//
// Enable writes the entry atomically (a temporary file renamed into
// place), Disable removes it, Enabled reports whether it is there. Every
// function takes the autostart directory, so tests use a temporary one;
// Dir gives the real one.
//
// It owns that one desktop entry and must not touch anything else in the
// user's configuration.
package autostart

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// FileName is the desktop entry's file name, after the app id.
const FileName = "dev.awp.tray.desktop"

// Entry describes what to start.
type Entry struct {
	Name    string   // shown in session settings, e.g. "AWP"
	Comment string   // one line about the app
	Exec    string   // absolute path of the program
	Args    []string // its arguments, e.g. --data DIR
	Icon    string   // icon name or absolute path; optional
}

// Dir returns the user's autostart directory: $XDG_CONFIG_HOME/autostart,
// by default ~/.config/autostart.
func Dir() (string, error) {
	if d := os.Getenv("XDG_CONFIG_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "autostart"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("autostart: %w", err)
	}
	return filepath.Join(home, ".config", "autostart"), nil
}

// Enabled reports whether dir holds the app's entry.
func Enabled(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, FileName))
	return err == nil
}

// Enable writes the entry into dir, creating dir if needed. It replaces
// an earlier entry atomically.
func Enable(dir string, e Entry) error {
	if !filepath.IsAbs(e.Exec) {
		return fmt.Errorf("autostart: program path %q is not absolute", e.Exec)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("autostart: %w", err)
	}
	tmp, err := os.CreateTemp(dir, ".awp-autostart-*")
	if err != nil {
		return fmt.Errorf("autostart: %w", err)
	}
	defer os.Remove(tmp.Name()) // after a successful rename this fails harmlessly
	if _, err := tmp.WriteString(DesktopFile(e)); err != nil {
		tmp.Close()
		return fmt.Errorf("autostart: write: %w", err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return fmt.Errorf("autostart: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("autostart: write: %w", err)
	}
	if err := os.Rename(tmp.Name(), filepath.Join(dir, FileName)); err != nil {
		return fmt.Errorf("autostart: %w", err)
	}
	return nil
}

// Disable removes the entry from dir; a missing entry is not an error.
func Disable(dir string) error {
	err := os.Remove(filepath.Join(dir, FileName))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("autostart: %w", err)
	}
	return nil
}

// DesktopFile renders the entry as a desktop entry file.
func DesktopFile(e Entry) string {
	var b strings.Builder
	b.WriteString("[Desktop Entry]\n")
	b.WriteString("Type=Application\n")
	fmt.Fprintf(&b, "Name=%s\n", escapeValue(e.Name))
	if e.Comment != "" {
		fmt.Fprintf(&b, "Comment=%s\n", escapeValue(e.Comment))
	}
	fmt.Fprintf(&b, "Exec=%s\n", escapeValue(ExecLine(e.Exec, e.Args)))
	if e.Icon != "" {
		fmt.Fprintf(&b, "Icon=%s\n", escapeValue(e.Icon))
	}
	b.WriteString("Terminal=false\n")
	b.WriteString("X-GNOME-Autostart-enabled=true\n")
	return b.String()
}

// ExecLine quotes a command line as the Desktop Entry Specification's Exec
// key wants it (before the value escaping of the file format): arguments
// with reserved characters are double-quoted, with ", `, $ and \ escaped
// inside, and % is doubled.
func ExecLine(prog string, args []string) string {
	all := append([]string{prog}, args...)
	for i, a := range all {
		all[i] = quoteArg(a)
	}
	return strings.Join(all, " ")
}

func quoteArg(a string) string {
	a = strings.ReplaceAll(a, "%", "%%")
	if a != "" && !strings.ContainsAny(a, " \t\n\"'\\><~|&;$*?#()`=") {
		return a
	}
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "`", "\\`", `$`, `\$`)
	return `"` + r.Replace(a) + `"`
}

// escapeValue escapes a string value for a desktop entry: backslash,
// newline, tab and carriage return.
func escapeValue(s string) string {
	r := strings.NewReplacer(`\`, `\\`, "\n", `\n`, "\t", `\t`, "\r", `\r`)
	return r.Replace(s)
}
