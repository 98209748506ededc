package grant

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/key/keytest"
	"github.com/awp-tray/awp-tray/peer/wire"
)

var t0 = time.Date(2026, 9, 25, 12, 0, 0, 0, time.UTC)

// signObj signs an arbitrary object (which may hold unknown fields) with k
// and parses the result; it fills iss with k's key when absent.
func signObj(t testing.TB, k key.PrivateKey, obj map[string]any) *Grant {
	t.Helper()
	if _, ok := obj["iss"]; !ok {
		obj["iss"] = k.Public().String()
	}
	msg, err := canonicalOf(obj)
	if err != nil {
		t.Fatal(err)
	}
	obj["sig"] = k.SignText(msg)
	raw, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	g, err := Parse(raw)
	if err != nil {
		t.Fatalf("Parse: %v\n%s", err, raw)
	}
	return g
}

func mustSign(t testing.TB, k key.PrivateKey, sub key.PublicKey, caps []string, exp time.Time, on ...key.PublicKey) *Grant {
	t.Helper()
	var onList []key.PublicKey
	if len(on) > 0 {
		onList = on
	}
	g, err := Sign(k, sub, caps, exp, onList, "")
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// tamper re-parses g's raw bytes after replacing old with new once.
func tamper(t testing.TB, g *Grant, old, new string) *Grant {
	t.Helper()
	s := string(g.Raw)
	if !strings.Contains(s, old) {
		t.Fatalf("tamper: %q not in %s", old, s)
	}
	ng, err := Parse([]byte(strings.Replace(s, old, new, 1)))
	if err != nil {
		t.Fatal(err)
	}
	return ng
}

func TestHonorRule(t *testing.T) {
	alice, bob, carol, dave, eve := keytest.Seeded(t, 1), keytest.Seeded(t, 2), keytest.Seeded(t, 3), keytest.Seeded(t, 4), keytest.Seeded(t, 5)
	A, B, C, D, E := alice.Public(), bob.Public(), carol.Public(), dave.Public(), eve.Public()
	later, past := t0.Add(time.Hour), t0.Add(-time.Second)
	exec := []string{CapExec}
	introduce := []string{CapIntroduce}

	own := mustSign(t, alice, B, exec, later)
	byCarol := mustSign(t, carol, B, exec, later)
	byDave := mustSign(t, dave, B, exec, later)
	introCarol := mustSign(t, alice, C, introduce, later)
	introCarolByDave := mustSign(t, dave, C, introduce, later)
	introDaveByCarol := mustSign(t, carol, D, introduce, later)
	introCarolByEve := mustSign(t, eve, C, introduce, later)
	unknown := signObj(t, carol, map[string]any{
		"sub": B.String(), "caps": exec, "exp": later.Format(time.RFC3339),
		"x-ext": map[string]any{"why": "ci", "n": []int{3, 1}}, "nonce": "bm9uY2U",
	})

	tests := []struct {
		name    string
		self    key.PublicKey
		trusted []key.PublicKey
		req     key.PublicKey
		cap     string
		grants  []*Grant
		now     time.Time
		ok      bool
		why     string // substring of the refusal
	}{
		{name: "own grant", grants: []*Grant{own}, ok: true},
		{name: "own grant other cap of several", cap: CapFSRead, grants: []*Grant{mustSign(t, alice, B, []string{"exec", "fs:read"}, later)}, ok: true},
		{name: "trusted issuer", trusted: []key.PublicKey{C}, grants: []*Grant{byCarol}, ok: true},
		{name: "untrusted issuer", grants: []*Grant{byCarol}, why: WhyNotTrusted},
		{name: "untrusted issuer, trusted someone else", trusted: []key.PublicKey{D}, grants: []*Grant{byCarol}, why: WhyNotTrusted},
		{name: "introduced one level by self", grants: []*Grant{byCarol, introCarol}, ok: true},
		{name: "introduced one level, introduce grant first", grants: []*Grant{introCarol, byCarol}, ok: true},
		{name: "introduced by trusted key", trusted: []key.PublicKey{D}, grants: []*Grant{byCarol, introCarolByDave}, ok: true},
		{name: "introduced two levels refused", grants: []*Grant{byDave, introDaveByCarol, introCarol}, why: WhyIntroIssuer},
		{name: "introduced by untrusted key", grants: []*Grant{byCarol, introCarolByEve}, why: WhyIntroIssuer},
		{name: "expired", grants: []*Grant{mustSign(t, alice, B, exec, past)}, why: WhyExpired},
		{name: "expires exactly now", grants: []*Grant{mustSign(t, alice, B, exec, t0)}, why: WhyExpired},
		{name: "wrong sub", req: E, grants: []*Grant{own}, why: WhyWrongSub},
		{name: "wrong cap", cap: CapFSWrite, grants: []*Grant{own}, why: WhyWrongCap},
		{name: "cap is exact", cap: "exe", grants: []*Grant{own}, why: WhyWrongCap},
		{name: "on includes self", grants: []*Grant{mustSign(t, alice, B, exec, later, D, A)}, ok: true},
		{name: "on excludes self", grants: []*Grant{mustSign(t, alice, B, exec, later, D)}, why: WhyNotOn},
		{name: "on empty", grants: []*Grant{signObj(t, alice, map[string]any{"sub": B.String(), "caps": exec, "exp": later.Format(time.RFC3339), "on": []string{}})}, why: WhyNotOn},
		{name: "tampered caps", cap: CapFSWrite, grants: []*Grant{tamper(t, own, `"exec"`, `"fs:write"`)}, why: WhyBadSig},
		{name: "tampered exp", grants: []*Grant{tamper(t, mustSign(t, alice, B, exec, past), past.Format(time.RFC3339), later.Format(time.RFC3339))}, why: WhyBadSig},
		{name: "tampered sub", req: E, grants: []*Grant{tamper(t, own, B.String(), E.String())}, why: WhyBadSig},
		{name: "issuer swapped", grants: []*Grant{tamper(t, byCarol, C.String(), A.String())}, why: WhyBadSig},
		{name: "introduce grant expired", grants: []*Grant{byCarol, mustSign(t, alice, C, introduce, past)}, why: WhyIntroExpired},
		{name: "introduce grant on excludes self", grants: []*Grant{byCarol, mustSign(t, alice, C, introduce, later, D)}, why: WhyIntroNotOn},
		{name: "introduce grant on includes self", grants: []*Grant{byCarol, mustSign(t, alice, C, introduce, later, A)}, ok: true},
		{name: "introduce grant tampered", grants: []*Grant{byCarol, tamper(t, mustSign(t, alice, C, []string{"chat"}, later), `"chat"`, `"introduce"`)}, why: WhyIntroBadSig},
		{name: "introduce grant lacks introduce", grants: []*Grant{byCarol, mustSign(t, alice, C, exec, later)}, why: WhyNotTrusted},
		{name: "introduce grant for someone else", grants: []*Grant{byCarol, mustSign(t, alice, D, introduce, later)}, why: WhyNotTrusted},
		{name: "introduced issuer's grant itself expired", grants: []*Grant{mustSign(t, carol, B, exec, past), introCarol}, why: WhyExpired},
		{name: "unknown fields kept and signed", trusted: []key.PublicKey{C}, grants: []*Grant{unknown}, ok: true},
		{name: "unknown field tampered", trusted: []key.PublicKey{C}, grants: []*Grant{tamper(t, unknown, `"ci"`, `"cd"`)}, why: WhyBadSig},
		{name: "no grants", why: WhyNoGrant},
		{name: "nil grants skipped", grants: []*Grant{nil, own, nil}, ok: true},
		{name: "best reason wins", grants: []*Grant{mustSign(t, alice, E, exec, later), mustSign(t, alice, B, exec, past)}, why: WhyExpired},
		{name: "one good among bad", grants: []*Grant{mustSign(t, alice, B, exec, past), byCarol, own}, ok: true},
		{name: "zero self", self: key.PublicKey{}, grants: []*Grant{own}, why: WhyNoSelf},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := Checker{Self: A, Now: func() time.Time { return t0 }}
			if tc.name == "zero self" {
				c.Self = tc.self
			}
			if tc.trusted != nil {
				tr := tc.trusted
				c.Trusted = func(k key.PublicKey) bool {
					for _, x := range tr {
						if x == k {
							return true
						}
					}
					return false
				}
			}
			req, cp := tc.req, tc.cap
			if req.IsZero() {
				req = B
			}
			if cp == "" {
				cp = CapExec
			}
			ok, why := c.Honors(req, cp, tc.grants)
			if ok != tc.ok {
				t.Fatalf("Honors = %v (%q), want %v", ok, why, tc.ok)
			}
			if ok && why != "" {
				t.Errorf("honored with why %q", why)
			}
			if !ok && !strings.Contains(why, tc.why) {
				t.Errorf("why = %q, want it to contain %q", why, tc.why)
			}
			if strings.ContainsAny(why, "\n\r") {
				t.Errorf("why is not one line: %q", why)
			}
		})
	}
}

func TestUnknownFieldsKept(t *testing.T) {
	carol := keytest.Seeded(t, 3)
	g := signObj(t, carol, map[string]any{
		"sub": keytest.Seeded(t, 2).Public().String(), "caps": []string{"exec"},
		"exp": t0.Format(time.RFC3339), "zz": "kept", "a": map[string]any{"b": 1},
	})
	if err := g.Verify(); err != nil {
		t.Fatal(err)
	}
	// Forwarded through MarshalJSON inside another object, then parsed again.
	outer, err := json.Marshal(map[string]any{"grant": g})
	if err != nil {
		t.Fatal(err)
	}
	got, err := Attached(outer)
	if err != nil || len(got) != 1 {
		t.Fatalf("Attached: %v %d", err, len(got))
	}
	if err := got[0].Verify(); err != nil {
		t.Fatalf("forwarded grant: %v", err)
	}
	c1, _ := wire.Canonical(g.Raw)
	c2, _ := wire.Canonical(got[0].Raw)
	if !bytes.Equal(c1, c2) || !bytes.Contains(c2, []byte(`"zz":"kept"`)) || !bytes.Contains(c2, []byte(`"a":{"b":1}`)) {
		t.Errorf("unknown fields lost: %s", c2)
	}
	// Trusted trusts its own key even when Trusted says no to everything.
	c := Checker{Self: carol.Public(), Trusted: func(key.PublicKey) bool { return false }, Now: func() time.Time { return t0.Add(-time.Minute) }}
	if ok, why := c.Honors(keytest.Seeded(t, 2).Public(), CapExec, got); !ok {
		t.Errorf("own key not trusted: %s", why)
	}
}

func TestSign(t *testing.T) {
	alice, bob := keytest.Seeded(t, 1), keytest.Seeded(t, 2)
	exp := time.Date(2030, 1, 2, 3, 4, 5, 999, time.FixedZone("x", 3600))
	g, err := Sign(alice, bob.Public(), []string{"exec", "fs:read"}, exp, []key.PublicKey{alice.Public()}, "a <note> & \"quote\"")
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Verify(); err != nil {
		t.Fatal(err)
	}
	if g.Iss != alice.Public() || g.Sub != bob.Public() || !g.Has("fs:read") || g.Has("fs:write") {
		t.Errorf("fields: %+v", g)
	}
	if !g.Exp.Equal(exp.Truncate(time.Second)) || !bytes.Contains(g.Raw, []byte(`"exp":"2030-01-02T02:04:05Z"`)) {
		t.Errorf("exp %v raw %s", g.Exp, g.Raw)
	}
	if n, err := key.B64.DecodeString(g.Nonce); err != nil || len(n) != NonceSize {
		t.Errorf("nonce %q: %v", g.Nonce, err)
	}
	if c, _ := wire.Canonical(g.Raw); !bytes.Equal(c, g.Raw) {
		t.Errorf("Sign output not canonical: %s", g.Raw)
	}
	if g.Note != "a <note> & \"quote\"" {
		t.Errorf("note %q", g.Note)
	}
	g2, _ := Sign(alice, bob.Public(), []string{"exec"}, exp, nil, "")
	if g2.Nonce == g.Nonce {
		t.Error("nonce repeated")
	}
	if g2.On != nil || bytes.Contains(g2.Raw, []byte(`"on"`)) || bytes.Contains(g2.Raw, []byte(`"note"`)) {
		t.Errorf("absent on/note written: %s", g2.Raw)
	}
	bad := []struct {
		name string
		f    func() (*Grant, error)
	}{
		{"zero key", func() (*Grant, error) { return Sign(key.PrivateKey{}, bob.Public(), []string{"exec"}, exp, nil, "") }},
		{"zero sub", func() (*Grant, error) { return Sign(alice, key.PublicKey{}, []string{"exec"}, exp, nil, "") }},
		{"no caps", func() (*Grant, error) { return Sign(alice, bob.Public(), nil, exp, nil, "") }},
		{"empty cap", func() (*Grant, error) { return Sign(alice, bob.Public(), []string{""}, exp, nil, "") }},
		{"zero exp", func() (*Grant, error) { return Sign(alice, bob.Public(), []string{"exec"}, time.Time{}, nil, "") }},
		{"zero on", func() (*Grant, error) {
			return Sign(alice, bob.Public(), []string{"exec"}, exp, []key.PublicKey{{}}, "")
		}},
	}
	for _, b := range bad {
		if _, err := b.f(); err == nil {
			t.Errorf("%s: no error", b.name)
		}
	}
}

// TestCheckerStored: grants from Checker.Stored are tried for the
// requester and for an issuer's introduce grant, taken as verified (the
// peer verified them when it stored them), and not appended to.
func TestCheckerStored(t *testing.T) {
	self, trusted, intro, req := keytest.Seeded(t, 1), keytest.Seeded(t, 2), keytest.Seeded(t, 3), keytest.Seeded(t, 4)
	exp := t0.Add(time.Hour)
	byIntro := mustSign(t, intro, req.Public(), []string{CapExec}, exp)
	introGrant := mustSign(t, trusted, intro.Public(), []string{CapIntroduce}, exp)
	stored := map[key.PublicKey][]*Grant{
		req.Public():   {byIntro},
		intro.Public(): {introGrant},
	}
	calls := 0
	c := Checker{Self: self.Public(), Now: func() time.Time { return t0 },
		Trusted: func(k key.PublicKey) bool { return k == trusted.Public() },
		Stored:  func(sub key.PublicKey) []*Grant { calls++; return stored[sub] }}
	if ok, why := c.Honors(req.Public(), CapExec, nil); !ok {
		t.Fatalf("stored grant by an introduced issuer refused: %s", why)
	}
	if calls != 2 {
		t.Errorf("Stored called %d times, want 2 (requester, issuer)", calls)
	}
	// Taken as verified: a stored grant is not checked again (this one's
	// signature is broken on purpose, which a real store never holds).
	forged, err := Parse(bytes.Replace(byIntro.Raw, []byte(`"exec"`), []byte(`"fs:write"`), 1))
	if err != nil || forged.Verify() == nil {
		t.Fatalf("tampered grant: %v", err)
	}
	stored[req.Public()] = []*Grant{forged}
	if ok, _ := c.Honors(req.Public(), CapFSWrite, nil); !ok {
		t.Error("a stored grant was verified again")
	}
	// The same grant attached (not stored) is verified, and refused.
	stored[req.Public()] = nil
	if ok, why := c.Honors(req.Public(), CapFSWrite, []*Grant{forged}); ok || why != WhyBadSig {
		t.Errorf("attached forged grant: %v %q", ok, why)
	}
	// Check does not append to the slice Stored returns.
	backing := append(make([]*Grant, 0, 8), byIntro)
	stored[req.Public()] = backing
	c.Check(req.Public(), CapExec, []*Grant{introGrant, introGrant})
	if full := backing[:cap(backing)]; full[1] != nil {
		t.Error("Check appended to the stored slice")
	}
}
