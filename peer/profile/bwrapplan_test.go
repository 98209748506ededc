//go:build linux

package profile

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The mount plan for the layouts people have: the workspace in home with
// the data directory in it, the workspace being home, or "/".
func TestBwrapPlan(t *testing.T) {
	// Outside /tmp, which the sandbox hides as a whole.
	base, err := os.MkdirTemp("/var/tmp", "awp-plan-*")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	if base, err = filepath.EvalSymlinks(base); err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(base, "home")
	data := filepath.Join(home, ".config", "awp")
	run := filepath.Join(base, "run")
	for _, d := range []string{data, run, filepath.Join(home, "src", "proj")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	plan := func(ws string) string {
		p := bwrapPlan{ws: ws, cwd: ws, hidden: []string{data}, home: home, runtime: run}
		var out []string
		for _, m := range p.mounts() {
			kind := "tmpfs"
			if m.bind {
				kind = "bind"
			}
			out = append(out, kind+" "+strings.ReplaceAll(m.dest, base, "B"))
		}
		return strings.Join(out, ", ")
	}
	tests := []struct{ ws, want string }{
		// /tmp, home and the runtime directory hidden, the project back;
		// the data directory is not visible (home is hidden): no mount.
		{filepath.Join(home, "src", "proj"), "bind /, tmpfs /tmp, tmpfs B/run, tmpfs B/home, bind B/home/src/proj"},
		// The workspace is home: the data directory inside it is hidden.
		{home, "bind /, tmpfs /tmp, tmpfs B/run, tmpfs B/home, bind B/home, tmpfs B/home/.config/awp"},
		// The workspace is /: /tmp and the runtime directory hidden again
		// (home is part of the workspace), and the data directory.
		{"/", "bind /, tmpfs /tmp, tmpfs B/run, tmpfs B/home, bind /, tmpfs /tmp, tmpfs B/run, tmpfs B/home/.config/awp"},
		// A workspace elsewhere: the data directory is hidden with home.
		{filepath.Join(base, "elsewhere"), "bind /, tmpfs /tmp, tmpfs B/run, tmpfs B/home, bind B/elsewhere"},
	}
	for _, tc := range tests {
		if got := plan(tc.ws); got != tc.want {
			t.Errorf("ws %s:\n got %s\nwant %s", tc.ws, got, tc.want)
		}
	}
	// /dev and /proc come after the workspace, so "/" does not cover them.
	a := bwrapPlan{ws: "/", cwd: "/", home: home}.args(3)
	if i, j := slices.Index(a, "--bind"), slices.Index(a, "--proc"); i < 0 || j < i {
		t.Errorf("args %v", a)
	}
	if !slices.Contains(a, "--unshare-pid") || !slices.Contains(a, "--die-with-parent") || slices.Contains(a, "--unshare-net") {
		t.Errorf("namespaces %v", a)
	}
	if a := (bwrapPlan{ws: "/w", cwd: "/w", noNet: true}).args(3); !slices.Contains(a, "--unshare-net") || a[len(a)-1] != "--" {
		t.Errorf("no network: %v", a)
	}
}
