package peer

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/awp-tray/awp-tray/internal/testsync"
	"github.com/awp-tray/awp-tray/peer/grant"
	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/profile"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// BenchmarkAttackGrantsRequests measures issue 18 item 9's attack: the
// node holds 4,096 loose grants whose subject is the attacker, each from a
// throwaway key (sent as grant parts, 32 to a msg), and the attacker sends
// one 16 KB msg of 200 exec parts without a grant; the node refuses
// whatever it handles (DenyAll). An op is one such msg, until every
// answer arrived; cpu-s/op is the process's CPU time (the node's, and the
// raw peer's reading, which is small). "unrelated" is the same msg from a
// key no stored grant names.
//
//	go test ./peer -run '^$' -bench AttackGrantsRequests -benchtime 3x
func BenchmarkAttackGrantsRequests(b *testing.B) {
	exe := newTestNode(b, "exe", func(c *Config) { c.Logger = nil; c.Approver = DenyAll{}; c.Workspace = b.TempDir() })
	attacker := dialRaw(b, exe)
	attacker.handshake()
	_ = attacker.c.SetDeadline(time.Time{})
	const loose, perMsg = 4096, 32
	exp := time.Now().Add(time.Hour)
	for sent := 0; sent < loose; {
		parts := make([]json.RawMessage, 0, perMsg)
		for range perMsg {
			iss, _ := key.NewPrivate()
			g, err := grant.Sign(iss, attacker.priv.Public(), []string{"exec"}, exp, nil, "")
			if err != nil {
				b.Fatal(err)
			}
			parts = append(parts, dataPart(b, grant.Mime, json.RawMessage(g.Raw)))
		}
		id := attacker.sendParts("thr_seed", parts...)
		attacker.expectAck("thr_seed", id, "")
		sent += perMsg
	}
	if gs, _ := exe.Grants(); len(gs) != loose {
		b.Fatalf("%d grants stored, want %d", len(gs), loose)
	}
	const parts = 200
	msg := make([]json.RawMessage, parts)
	for i := range msg {
		msg[i] = dataPart(b, profile.MimeExec, map[string]any{"cmd": fmt.Sprintf("echo %d", i)})
	}
	// Answers: the requests handled, and one too_large for the rest.
	want := min(parts, MaxRequestsPerMsg)
	if parts > MaxRequestsPerMsg {
		want++
	}
	run := func(b *testing.B, p *rawPeer) {
		cpu0 := cpuTime()
		for i := 0; i < b.N; i++ {
			id := p.sendParts("thr_attack", msg...)
			for got := 0; got < want; {
				if e, ok := p.read().(*wire.Err); ok && e.Re == id {
					got++
				}
			}
		}
		b.ReportMetric((cpuTime()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
	}
	b.Run("subject", func(b *testing.B) { run(b, attacker) })
	unrelated := dialRaw(b, exe)
	unrelated.handshake()
	_ = unrelated.c.SetDeadline(time.Time{})
	b.Run("unrelated", func(b *testing.B) { run(b, unrelated) })
}

// BenchmarkGrantedRead is the legitimate flow the bounds must not slow:
// a peer holding a stored grant reads a small file on another, over
// loopback TCP, one request at a time (round trip, including the grant
// check on both sides and the result's commit).
func BenchmarkGrantedRead(b *testing.B) {
	ws := b.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("hello\n"), 0o600); err != nil {
		b.Fatal(err)
	}
	exe := newTestNode(b, "exe", func(c *Config) { c.Logger = nil; c.Approver = DenyAll{}; c.Workspace = ws })
	req := newTestNode(b, "req", func(c *Config) { c.Logger = nil })
	connect(b, req, exe)
	if _, err := exe.Grant(context.Background(), req.Key(), []string{"fs:read"}, time.Hour, nil, ""); err != nil {
		b.Fatal(err)
	}
	testsync.Eventually(b, "req holds the grant", func() bool { gs, _ := req.Grants(); return len(gs) == 1 })
	data := json.RawMessage(`{"path":"a.txt"}`)
	cpu0 := cpuTime()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		if _, err := req.Request(ctx, exe.Key(), profile.MimeRead, data, ""); err != nil {
			b.Fatal(err)
		}
		cancel()
	}
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/float64(b.N), "cpu-µs/op")
}
