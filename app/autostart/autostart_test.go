package autostart

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestEnableDisable(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "autostart") // does not exist yet
	if Enabled(dir) {
		t.Fatal("enabled before Enable")
	}
	e := Entry{Name: "AWP", Comment: "Agent Wire Protocol", Exec: "/opt/awp/awp-tray", Args: []string{"--data", "/home/me/my data"}}
	if err := Enable(dir, e); err != nil {
		t.Fatal(err)
	}
	if !Enabled(dir) {
		t.Fatal("not enabled after Enable")
	}
	b, err := os.ReadFile(filepath.Join(dir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	want := "[Desktop Entry]\nType=Application\nName=AWP\nComment=Agent Wire Protocol\n" +
		`Exec=/opt/awp/awp-tray --data "/home/me/my data"` + "\nTerminal=false\nX-GNOME-Autostart-enabled=true\n"
	if string(b) != want {
		t.Errorf("file:\n%s\nwant:\n%s", b, want)
	}
	st, _ := os.Stat(filepath.Join(dir, FileName))
	if st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", st.Mode().Perm())
	}
	// Enabling again replaces the entry and leaves no temporary files.
	e.Args = nil
	if err := Enable(dir, e); err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("dir holds %d files, want 1", len(ents))
	}
	if b, _ := os.ReadFile(filepath.Join(dir, FileName)); !strings.Contains(string(b), "Exec=/opt/awp/awp-tray\n") {
		t.Errorf("not replaced:\n%s", b)
	}
	if err := Disable(dir); err != nil {
		t.Fatal(err)
	}
	if Enabled(dir) {
		t.Error("enabled after Disable")
	}
	if err := Disable(dir); err != nil {
		t.Errorf("second Disable: %v", err)
	}
}

func TestEnableRejectsRelativeExec(t *testing.T) {
	if err := Enable(t.TempDir(), Entry{Name: "AWP", Exec: "awp-tray"}); err == nil {
		t.Error("relative Exec accepted")
	}
}

func TestExecLineQuoting(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "/bin/awp"},
		{[]string{"--data", "/a b"}, `/bin/awp --data "/a b"`},
		{[]string{`x"y`}, `/bin/awp "x\"y"`},
		{[]string{`$HOME\x`}, `/bin/awp "\$HOME\\x"`},
		{[]string{"100%"}, `/bin/awp 100%%`},
		{[]string{""}, `/bin/awp ""`},
	} {
		if got := ExecLine("/bin/awp", tc.args); got != tc.want {
			t.Errorf("ExecLine(%q) = %s, want %s", tc.args, got, tc.want)
		}
	}
	// The file format escapes backslashes once more.
	if got := DesktopFile(Entry{Name: "a\nb", Exec: "/bin/awp", Args: []string{`\`}}); !strings.Contains(got, "Name=a\\nb\n") || !strings.Contains(got, `Exec=/bin/awp "\\\\"`) {
		t.Errorf("DesktopFile escaping:\n%s", got)
	}
}

func TestDir(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", "/cfg")
	if d, _ := Dir(); d != "/cfg/autostart" {
		t.Errorf("Dir = %q", d)
	}
	t.Setenv("XDG_CONFIG_HOME", "relative") // ignored per the XDG spec
	t.Setenv("HOME", "/home/me")
	if d, _ := Dir(); d != "/home/me/.config/autostart" {
		t.Errorf("Dir = %q", d)
	}
}
