//go:build unix

package profile

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
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
	}
	for _, s := range seeds {
		f.Add(s.kind, []byte(s.data))
	}
	mimes := []string{MimeExec, MimeRead, MimeWrite}
	e := newEnv(f)
	before := e.snapshotNoFail()
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
	})
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
		if k != "cmd" && k != "timeout" && k != "cwd" && k != "env" && k != "stdin" {
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
