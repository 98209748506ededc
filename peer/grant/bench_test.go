package grant

import (
	"testing"
	"time"

	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/key/keytest"
)

func BenchmarkVerify(b *testing.B) {
	g := mustSign(b, keytest.Seeded(b, 1), keytest.Seeded(b, 2).Public(), []string{CapExec}, t0.Add(time.Hour))
	for b.Loop() {
		if err := g.Verify(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkHonorsHostile: a request carrying 500 grants from one untrusted
// issuer and 500 introduce grants for it from untrusted keys. Each
// signature is checked once per call, not once per pair.
func BenchmarkHonorsHostile(b *testing.B) {
	x, bob := keytest.Seeded(b, 9), keytest.Seeded(b, 2).Public()
	var grants []*Grant
	for i := 0; i < 500; i++ {
		grants = append(grants, mustSign(b, x, bob, []string{CapExec}, t0.Add(time.Hour)))
		grants = append(grants, mustSign(b, keytest.Seeded(b, byte(10+i%200)), x.Public(), []string{CapIntroduce}, t0.Add(time.Hour)))
	}
	c := Checker{Self: keytest.Seeded(b, 1).Public(), Now: func() time.Time { return t0 }, Trusted: func(key.PublicKey) bool { return false }}
	for b.Loop() {
		if ok, _ := c.Honors(bob, CapExec, grants); ok {
			b.Fatal("honored")
		}
	}
}
