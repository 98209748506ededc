//go:build unix

package profile

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzHandle feeds arbitrary request data to every request kind. Handle
// must not panic, must return only its documented errors, and nothing
// outside the workspace may change. Exec requests run a harmless fixed
// command (the fuzzer must not run arbitrary programs): the fuzzed data
// still goes through decoding, the cwd sandbox, env and stdin handling.
func FuzzHandle(f *testing.F) {
	seeds := []struct {
		kind byte
		data string
	}{
		{0, `{"cmd":["make","test"],"cwd":"services/api","env":{"CI":"1"},"timeout":600,"stdin":""}`},
		{0, `{"cmd":"echo hi","cwd":"../outside"}`},
		{0, `{"cmd":["true"],"cwd":"toout"}`},
		{1, `{"path":"go.mod","offset":0,"length":65536}`},
		{1, `{"path":"toout/secret.txt"}`},
		{1, `{"path":"/etc/passwd"}`},
		{1, `{"path":"."}`},
		{2, `{"path":"notes/todo.md","content":"...","encoding":"utf-8","append":false,"mkdir":true}`},
		{2, `{"path":"../outside/x","content":"AAA=","encoding":"base64","mkdir":true}`},
		{2, `{"path":"sub/up/outside/x","content":"x","append":true}`},
		{1, `{"path":".awp/identity.key"}`},
		{1, `{"path":"hl"}`},
		{2, `{"path":".awp/new/x","content":"x","mkdir":true}`},
		{0, `{"cmd":["true"],"cwd":".awp","network":false}`},
	}
	for _, s := range seeds {
		f.Add(s.kind, []byte(s.data))
	}
	mimes := []string{MimeExec, MimeRead, MimeWrite}
	e := newEnv(f)
	// The node's data directory inside the workspace, with a hard link to
	// its key elsewhere: never read, written or listed.
	dataDir := filepath.Join(e.ws, ".awp")
	if err := os.Mkdir(dataDir, 0o700); err != nil {
		f.Fatal(err)
	}
	e.file(filepath.Join(dataDir, "identity.key"), dataSecret)
	if err := os.Link(filepath.Join(dataDir, "identity.key"), filepath.Join(e.ws, "hl")); err != nil {
		f.Fatal(err)
	}
	e.r.Hidden = []string{dataDir}
	before := e.snapshotNoFail()
	hiddenBefore := e.treeNoFail(dataDir)
	f.Fuzz(func(t *testing.T, kind byte, data []byte) {
		mime := mimes[int(kind)%len(mimes)]
		if mime == MimeExec {
			data = tameExec(data)
		}
		res, err := e.r.Handle(context.Background(), peerA, mime, data, kind&4 != 0)
		res.Remove()
		if err != nil && !errors.Is(err, ErrBadRequest) {
			t.Fatalf("Handle: %v", err)
		}
		if err == nil && !json.Valid(res.Data) {
			t.Fatalf("invalid result data %q", res.Data)
		}
		if after := e.snapshotNoFail(); after != before {
			t.Fatalf("outside changed by %s %q:\n%s\n---\n%s", mime, data, before, after)
		}
		if after := e.treeNoFail(dataDir); after != hiddenBefore {
			t.Fatalf("the data directory changed by %s %q:\n%s\n---\n%s", mime, data, hiddenBefore, after)
		}
		if strings.Contains(string(res.Data), dataSecret) || strings.Contains(string(res.Data), `"name":".awp"`) {
			t.Fatalf("%s %q reached the data directory: %s", mime, data, res.Data)
		}
	})
}

// treeNoFail lists dir's names and contents, for the fuzz target.
func (e *env) treeNoFail(dir string) string {
	var out string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			out += "ERR " + err.Error() + "\n"
			return nil
		}
		out += p
		if c, err := os.ReadFile(p); err == nil {
			out += " " + string(c)
		}
		out += "\n"
		return nil
	})
	return out
}

// tameExec replaces cmd with a fixed harmless command and caps the
// timeout, keeping every other field as fuzzed.
func tameExec(data []byte) []byte {
	var m map[string]json.RawMessage
	if json.Unmarshal(data, &m) != nil || m == nil {
		return data
	}
	if _, ok := m["cmd"]; ok {
		m["cmd"] = json.RawMessage(`["pwd"]`)
	}
	if _, ok := m["timeout"]; ok {
		m["timeout"] = json.RawMessage(`5`)
	}
	for k := range m {
		if k != "cmd" && k != "timeout" && k != "cwd" && k != "env" && k != "stdin" && k != "network" {
			delete(m, k) // a case-folded "CMD" must not smuggle a command in
		}
	}
	b, err := json.Marshal(m)
	if err != nil {
		return data
	}
	return b
}

// snapshotNoFail is snapshot for the fuzz target (no *testing.T of its own
// between iterations): it returns an error text instead of failing.
func (e *env) snapshotNoFail() string {
	var out string
	filepath.WalkDir(e.base, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			out += "ERR " + err.Error() + "\n"
			return nil
		}
		if p == e.ws || p == e.tmp {
			return filepath.SkipDir
		}
		info, _ := d.Info()
		if info != nil {
			out += p + " " + info.Mode().String()
			if info.Mode().IsRegular() {
				c, _ := os.ReadFile(p)
				out += " " + string(c)
			}
		}
		out += "\n"
		return nil
	})
	return out
}
