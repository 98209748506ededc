//go:build linux

package profile

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkExec is what one exec of `true` costs without the sandbox and
// under bubblewrap (skipped where it cannot run): the sandbox's price per
// request, in wall time per op (the command itself is nothing).
func BenchmarkExec(b *testing.B) {
	for _, mode := range []string{SandboxNone, SandboxBwrap} {
		b.Run(mode, func(b *testing.B) {
			e := newEnv(b)
			e.r.Sandbox = mode
			if mode == SandboxBwrap {
				if st := e.r.SandboxStatus(); !st.Available {
					b.Skip(st.Reason)
				}
			}
			data := json.RawMessage(`{"cmd":["true"]}`)
			b.ReportAllocs()
			for b.Loop() {
				res, err := e.r.Handle(context.Background(), peerA, MimeExec, data, false)
				if err != nil || !json.Valid(res.Data) {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkReadGuard is an fs:read of a small file 8 directories deep,
// with and without a hidden data directory to keep out (the guard walks
// up from the file's directory to the root by descriptor).
func BenchmarkReadGuard(b *testing.B) {
	for _, hidden := range []bool{false, true} {
		name := "no-hidden"
		if hidden {
			name = "hidden"
		}
		b.Run(name, func(b *testing.B) {
			e := newEnv(b)
			deep := filepath.Join("a", "b", "c", "d", "e", "f", "g", "h")
			if err := os.MkdirAll(filepath.Join(e.ws, deep), 0o755); err != nil {
				b.Fatal(err)
			}
			e.file(filepath.Join(e.ws, deep, "f.txt"), "hello")
			if hidden {
				d := filepath.Join(e.ws, ".awp")
				if err := os.Mkdir(d, 0o700); err != nil {
					b.Fatal(err)
				}
				e.r.Hidden = []string{d}
			}
			data, _ := json.Marshal(map[string]string{"path": filepath.Join(deep, "f.txt")})
			b.ReportAllocs()
			for b.Loop() {
				res, err := e.r.Handle(context.Background(), peerA, MimeRead, data, false)
				if err != nil || len(res.Data) == 0 {
					b.Fatal(err)
				}
			}
		})
	}
}
