package autostart

import (
	"bufio"
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// keys parses a desktop entry's [Desktop Entry] group.
func keys(t *testing.T, text string) map[string]string {
	t.Helper()
	m := map[string]string{}
	s := bufio.NewScanner(strings.NewReader(text))
	for s.Scan() {
		line := s.Text()
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "[") {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			t.Fatalf("line %q is no key=value", line)
		}
		m[k] = v
	}
	return m
}

// The launcher a package installs and the login entry Settings writes say
// the same but for the program's path and the autostart key.
func TestLauncherAndLoginAgree(t *testing.T) {
	launcher := keys(t, Launcher("awp-tray"))
	login := keys(t, DesktopFile(App("/usr/bin/awp-tray", []string{"--data", "/home/me/awp"})))
	if launcher["Exec"] != "awp-tray" || login["Exec"] != "/usr/bin/awp-tray --data /home/me/awp" {
		t.Errorf("Exec: launcher %q, login %q", launcher["Exec"], login["Exec"])
	}
	if login["X-GNOME-Autostart-enabled"] != "true" || launcher["X-GNOME-Autostart-enabled"] != "" {
		t.Error("the autostart key belongs to the login entry only")
	}
	for k, v := range launcher {
		if k != "Exec" && login[k] != v {
			t.Errorf("%s: launcher %q, login %q", k, v, login[k])
		}
	}
	if launcher["Icon"] != AppID || launcher["Name"] != "AWP" || launcher["Categories"] != "Network;Chat;" {
		t.Errorf("launcher:\n%s", Launcher("awp-tray"))
	}
}

// FyneApp.toml (fyne package's metadata) says what the entries say.
func TestFyneAppTomlAgrees(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "FyneApp.toml"))
	if err != nil {
		t.Fatal(err)
	}
	toml := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			toml[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	quoted := func(items []string) string { return `["` + strings.Join(items, `", "`) + `"]` }
	for k, want := range map[string]string{
		"ID": `"` + AppID + `"`, "Name": `"` + app.Name + `"`, "GenericName": `"` + app.GenericName + `"`,
		"Comment": `"` + app.Comment + `"`, "Categories": quoted(app.Categories), "Keywords": quoted(app.Keywords),
	} {
		if toml[k] != want {
			t.Errorf("FyneApp.toml %s = %s, the entries say %s", k, toml[k], want)
		}
	}
}

// TestEntriesValidate runs desktop-file-validate (Debian
// desktop-file-utils) on the launcher and the login entry.
func TestEntriesValidate(t *testing.T) {
	dfv, err := exec.LookPath("desktop-file-validate")
	if err != nil {
		t.Skip("desktop-file-validate not installed (apt-get install desktop-file-utils)")
	}
	dir := t.TempDir()
	for name, text := range map[string]string{
		"launcher": Launcher("awp-tray"),
		"login":    DesktopFile(App("/opt/AWP dir/awp-tray", []string{"--data", `/home/me/my "awp" $dir 100%`})),
	} {
		p := filepath.Join(dir, name, FileName)
		if err := writeEntry(filepath.Dir(p), FileName, text); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command(dfv, p).CombinedOutput(); err != nil || len(out) > 0 {
			t.Errorf("%s: desktop-file-validate: %v\n%s\n%s", name, err, out, text)
		}
	}
	// The check bites: a login entry with a bad key fails.
	bad := filepath.Join(dir, "bad", FileName)
	if err := writeEntry(filepath.Dir(bad), FileName, DesktopFile(App("/usr/bin/awp-tray", nil))+"Categories=NoSuchCategory;\n"); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(dfv, bad).CombinedOutput(); err == nil && len(out) == 0 {
		t.Error("desktop-file-validate accepts a duplicate, unknown category")
	}
}

func TestLaunchAgent(t *testing.T) {
	text := LaunchAgent(App("/Applications/AWP.app/Contents/MacOS/awp-tray", []string{"--data", "/Users/me/a <b> & c"}))
	d := xml.NewDecoder(strings.NewReader(text))
	var strs []string
	var inString bool
	for {
		tok, err := d.Token()
		if err != nil {
			break
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			inString = tok.Name.Local == "string"
		case xml.CharData:
			if inString {
				strs = append(strs, string(tok))
			}
		case xml.EndElement:
			inString = false
		}
	}
	want := []string{AppID, "/Applications/AWP.app/Contents/MacOS/awp-tray", "--data", "/Users/me/a <b> & c", "Interactive"}
	if !slices.Equal(strs, want) {
		t.Errorf("plist strings %q, want %q\n%s", strs, want, text)
	}
	if !strings.Contains(text, "<key>RunAtLoad</key>\n\t<true/>") {
		t.Errorf("no RunAtLoad:\n%s", text)
	}
}

// argv splits a Windows command line as CommandLineToArgvW does (the
// documented rules: 2n backslashes before a quote give n and the quote
// toggles quoting, 2n+1 give n and a literal quote; other backslashes are
// literal).
func argv(cl string) []string {
	var out []string
	var cur []rune
	in, have := false, false
	rs := []rune(cl)
	for i := 0; i < len(rs); i++ {
		switch c := rs[i]; {
		case c == '\\':
			n := 0
			for i < len(rs) && rs[i] == '\\' {
				n++
				i++
			}
			if i < len(rs) && rs[i] == '"' {
				cur = append(cur, []rune(strings.Repeat(`\`, n/2))...)
				if n%2 == 1 {
					cur = append(cur, '"')
				} else {
					in = !in
				}
			} else {
				cur = append(cur, []rune(strings.Repeat(`\`, n))...)
				i--
			}
			have = true
		case c == '"':
			in, have = !in, true
		case (c == ' ' || c == '\t') && !in:
			if have {
				out = append(out, string(cur))
			}
			cur, have = nil, false
		default:
			cur, have = append(cur, c), true
		}
	}
	if have {
		out = append(out, string(cur))
	}
	return out
}

func TestCommandLine(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{`C:\Program Files\AWP\awp-tray.exe`}, `"C:\Program Files\AWP\awp-tray.exe"`},
		{[]string{`C:\AWP\awp-tray.exe`, "--data", `C:\Users\me\my data\`}, `C:\AWP\awp-tray.exe --data "C:\Users\me\my data\\"`},
		{[]string{`a.exe`, `say "hi"`, ""}, `a.exe "say \"hi\"" ""`},
		{[]string{`a.exe`, `back\\"slash`}, `a.exe "back\\\\\"slash"`},
	} {
		got := CommandLine(tc.args[0], tc.args[1:])
		if got != tc.want {
			t.Errorf("CommandLine(%q) = %s, want %s", tc.args, got, tc.want)
		}
		if back := argv(got); !slices.Equal(back, tc.args) {
			t.Errorf("%s splits into %q, want %q", got, back, tc.args)
		}
	}
}
