package profile

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

const bwrapSupported = true

// bwrapPlan is what one sandboxed exec sees. Every path is real (symbolic
// links evaluated), as the mounts need.
type bwrapPlan struct {
	ws      string   // the workspace root: read-write
	cwd     string   // where the command starts, inside ws
	hidden  []string // Runner.Hidden: never visible, even inside ws
	home    string   // hidden, except what of it is ws
	runtime string   // $XDG_RUNTIME_DIR (keyring, ssh-agent and bus sockets): hidden
	noNet   bool
}

// mount is one step of the sandbox's file system, in order.
type mount struct {
	bind bool // a bind of the host's dest (else an empty tmpfs)
	dest string
}

// mounts lays out the file system: the system read-only, then empty
// tmpfs over /tmp, the home directory and the runtime directory, then the
// workspace read-write (over them when it is inside one), then /tmp and
// the runtime directory hidden again when the workspace contains them
// (a workspace of "/"), then every hidden directory still visible.
func (p bwrapPlan) mounts() []mount {
	var hide []string
	for _, d := range []string{"/tmp", p.home, p.runtime} {
		if d != "" && d != "/" && isDir(d) && !slices.Contains(hide, d) {
			hide = append(hide, d)
		}
	}
	// Parents first, so a tmpfs never lands on a path an earlier one hid.
	slices.SortFunc(hide, func(a, b string) int { return len(a) - len(b) })
	var hidden []string
	for _, h := range hide {
		if !slices.ContainsFunc(hidden, func(o string) bool { return under(h, o) }) {
			hidden = append(hidden, h)
		}
	}
	ms := []mount{{bind: true, dest: "/"}}
	for _, h := range hidden {
		ms = append(ms, mount{dest: h})
	}
	ms = append(ms, mount{bind: true, dest: p.ws})
	for _, h := range hidden {
		if h != p.home && under(h, p.ws) && h != p.ws {
			ms = append(ms, mount{dest: h})
		}
	}
	for _, d := range p.hidden {
		if visible(ms, d) {
			ms = append(ms, mount{dest: d})
		}
	}
	return ms
}

// visible says whether the host's path p shows through mounts: the last
// mount covering it is a bind.
func visible(ms []mount, p string) bool {
	v := false
	for _, m := range ms {
		if under(p, m.dest) {
			v = m.bind
		}
	}
	return v
}

// args is bwrap's command line up to and including "--"; statusFD is the
// descriptor for --json-status-fd.
func (p bwrapPlan) args(statusFD int) []string {
	a := bwrapNamespaces(p.noNet)
	for i, m := range p.mounts() {
		switch {
		case i == 0:
			a = append(a, "--ro-bind", "/", "/")
		case m.bind:
			a = append(a, "--bind", m.dest, m.dest)
		default:
			a = append(a, "--tmpfs", m.dest)
		}
		if i == 0 {
			continue
		}
		if m.bind && m.dest == p.ws {
			// /dev and /proc of the sandbox's own, over a workspace of "/".
			a = append(a, "--dev", "/dev", "--proc", "/proc")
		}
	}
	return append(a, "--chdir", p.cwd, "--json-status-fd", fmt.Sprint(statusFD), "--")
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// realPath evaluates symbolic links in an absolute path; "" when it
// cannot (a missing directory hides nothing and needs no mount).
func realPath(p string) string {
	if p == "" || !filepath.IsAbs(p) {
		return ""
	}
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		return ""
	}
	return r
}

// dirPath is the real path of the open directory d, as the kernel names
// it now (/proc/self/fd), checked to still be d.
func dirPath(d *os.File) (string, error) {
	p, err := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", d.Fd()))
	if err != nil {
		return "", err
	}
	st, err := os.Stat(p)
	want, err2 := d.Stat()
	if err != nil || err2 != nil || !os.SameFile(st, want) {
		return "", fmt.Errorf("working directory moved")
	}
	return p, nil
}
