package grant

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/awp-tray/awp-tray/internal/vectors"
	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/key/keytest"
	"github.com/awp-tray/awp-tray/peer/wire"
)

type vecKeys map[string]key.PrivateKey

func loadKeys(t *testing.T) vecKeys {
	t.Helper()
	ks := vecKeys{}
	for name, e := range vectors.Keys(t) {
		ks[name] = keytest.FromVector(t, e)
	}
	for _, n := range []string{"alice", "bob", "carol"} {
		if ks[n].IsZero() {
			t.Fatalf("keys.json lacks %s", n)
		}
	}
	return ks
}

type vecGrant struct {
	Object    json.RawMessage `json:"object"`
	Canonical string          `json:"canonical"`
}

func loadGrants(t *testing.T) map[string]vecGrant {
	t.Helper()
	out := vectors.ReadEntries[vecGrant](t, "grants.json")
	for _, n := range []string{"grant", "introduce_grant", "grant_by_introduced", "tampered_must_fail"} {
		if len(out[n].Object) == 0 {
			t.Fatalf("grants.json lacks %s", n)
		}
	}
	return out
}

func TestVectorsGrants(t *testing.T) {
	ks := loadKeys(t)
	vs := loadGrants(t)
	for name, v := range vs {
		t.Run(name, func(t *testing.T) {
			g, err := Parse(v.Object)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if name == "tampered_must_fail" {
				if err := g.Verify(); !errors.Is(err, ErrBadSignature) {
					t.Fatalf("tampered grant verified: %v", err)
				}
				return
			}
			c, err := wire.CanonicalWithout(g.Raw, "sig")
			if err != nil {
				t.Fatal(err)
			}
			if string(c) != v.Canonical {
				t.Errorf("canonical\n got %s\nwant %s", c, v.Canonical)
			}
			if err := g.Verify(); err != nil {
				t.Fatalf("Verify: %v", err)
			}
			// Ed25519 is deterministic: the issuer's key re-creates the sig.
			var signer key.PrivateKey
			for _, k := range ks {
				if k.Public() == g.Iss {
					signer = k
				}
			}
			if signer.IsZero() {
				t.Fatalf("issuer %s not in keys.json", g.Iss)
			}
			if got := signer.SignText([]byte(v.Canonical)); got != g.Sig {
				t.Errorf("re-signed sig %s, want %s", got, g.Sig)
			}
		})
	}
}

// TestVectorsIntroduceChain: alice issues carol an introduce grant; carol
// grants bob exec on alice. Alice (trusting only herself) honors bob's exec
// through the introduction; without the introduce grant she does not.
func TestVectorsIntroduceChain(t *testing.T) {
	ks := loadKeys(t)
	vs := loadGrants(t)
	parse := func(n string) *Grant {
		g, err := Parse(vs[n].Object)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	intro, byIntro, direct := parse("introduce_grant"), parse("grant_by_introduced"), parse("grant")
	alice, bob, carol := ks["alice"].Public(), ks["bob"].Public(), ks["carol"].Public()
	if intro.Iss != alice || intro.Sub != carol || byIntro.Iss != carol || byIntro.Sub != bob {
		t.Fatal("vector chain is not alice→carol→bob")
	}
	at := func(s string) func() time.Time {
		tm, _ := time.Parse(time.RFC3339, s)
		return func() time.Time { return tm }
	}
	c := Checker{Self: alice, Now: at("2026-09-25T19:00:00Z")}
	if ok, why := c.Honors(bob, CapExec, []*Grant{byIntro, intro}); !ok {
		t.Errorf("grant_by_introduced not honored on alice: %s", why)
	}
	if ok, why := c.Honors(bob, CapExec, []*Grant{byIntro}); ok || why != WhyNotTrusted {
		t.Errorf("without introduce grant: ok=%v why=%q", ok, why)
	}
	// On carol (not in "on"), the same grants are not honored.
	cc := Checker{Self: carol, Now: c.Now}
	if ok, why := cc.Honors(bob, CapExec, []*Grant{byIntro, intro}); ok || why != WhyNotOn {
		t.Errorf("on carol: ok=%v why=%q", ok, why)
	}
	// The plain grant: alice's own, exec and fs:read, until 20:00Z exactly.
	if ok, why := c.Honors(bob, CapFSRead, []*Grant{direct}); !ok {
		t.Errorf("direct grant: %s", why)
	}
	c.Now = at("2026-09-25T20:00:00Z")
	if ok, why := c.Honors(bob, CapFSRead, []*Grant{direct}); ok || why != WhyExpired {
		t.Errorf("at exp: ok=%v why=%q", ok, why)
	}
	tampered := parse("tampered_must_fail")
	c.Now = at("2026-09-25T19:00:00Z")
	if ok, why := c.Honors(bob, CapFSWrite, []*Grant{tampered}); ok || why != WhyBadSig {
		t.Errorf("tampered: ok=%v why=%q", ok, why)
	}
}
