package grant

import (
	"slices"
	"time"

	"github.com/awp-tray/awp-tray/peer/key"
)

// Refusal reasons Honors returns in why, one line each, for the msg of an
// `err forbidden`. The ones about an introduce grant are returned inside
// "issuer not trusted (…)".
const (
	WhyNoSelf       = "peer has no key"
	WhyNoGrant      = "no grant"
	WhyWrongSub     = "no grant for this requester"
	WhyWrongCap     = "grant does not cover this capability"
	WhyExpired      = "grant expired"
	WhyNotOn        = "grant not for this peer (on)"
	WhyBadSig       = "grant signature does not verify"
	WhyNotTrusted   = "issuer not trusted"
	WhyIntroExpired = "introduce grant expired"
	WhyIntroNotOn   = "introduce grant not for this peer (on)"
	WhyIntroBadSig  = "introduce grant signature does not verify"
	WhyIntroIssuer  = "introduce grant issuer not trusted"
)

// Checker applies the honor rule of docs/protocol/grants.md for one peer. The zero
// Trusted trusts no one but Self; the zero Now reads time.Now.
type Checker struct {
	Self    key.PublicKey            // this peer's own key; always trusted
	Trusted func(key.PublicKey) bool // the peer's trust list; nil trusts only Self
	Now     func() time.Time         // clock; nil is time.Now

	// Stored, when not nil, returns the grants the peer holds whose
	// subject is sub (an index: the honor rule of docs/protocol/grants.md
	// applies over the grants attached to a request together with those
	// stored). Check tries
	// them before the grants passed to it and takes their signatures as
	// verified: the peer checked each once, when it stored it. It must
	// not return revoked grants, and the caller must not change them.
	Stored func(sub key.PublicKey) []*Grant
}

func (c Checker) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

// trusts reports whether c trusts k; a peer always trusts its own key.
func (c Checker) trusts(k key.PublicKey) bool {
	return k == c.Self || (c.Trusted != nil && c.Trusted(k))
}

// Honors reports whether any of grants (the union of those attached to the
// request and those stored) lets requester use capability cap on this peer.
// When it does not, why says in one line why the most promising grant was
// refused (one of the Why… constants, possibly with detail).
func (c Checker) Honors(requester key.PublicKey, cap string, grants []*Grant) (ok bool, why string) {
	g, why := c.Check(requester, cap, grants)
	return g != nil, why
}

// Check is Honors returning the grant that honors the request (nil when
// none does), for logs and audit. Stored grants for the requester are
// tried first, then grants in order; the first that honors wins.
func (c Checker) Check(requester key.PublicKey, cap string, grants []*Grant) (*Grant, string) {
	if c.Self.IsZero() {
		return nil, WhyNoSelf
	}
	ck := &check{Checker: c, now: c.now(), all: grants, sig: map[*Grant]bool{}, intro: map[key.PublicKey]introResult{}}
	best, bestRank := WhyNoGrant, -1
	// A new slice: the one Stored returns is not ours to append to.
	for _, g := range slices.Concat(ck.stored(requester), grants) {
		rank, why := ck.honorsOne(requester, cap, g)
		if rank == rankOK {
			return g, ""
		}
		if rank > bestRank {
			best, bestRank = why, rank
		}
	}
	return nil, best
}

// Ranks order refusals by how far a grant got through the rule, so the
// reason reported is that of the grant closest to being honored.
const (
	rankSub = iota
	rankCap
	rankExp
	rankOn
	rankSig
	rankIssuer
	rankOK
)

// check is one Check call: it verifies each grant's signature at most once
// and decides each issuer's introduction at most once, so a request
// carrying many grants costs O(n) signature checks, not O(n²).
type check struct {
	Checker
	now   time.Time
	all   []*Grant
	sig   map[*Grant]bool // verified signatures
	intro map[key.PublicKey]introResult
}

type introResult struct {
	ok  bool
	why string
}

// honorsOne checks one grant G; c.all is searched for an introduce grant
// when G's issuer is not trusted directly.
func (c *check) honorsOne(requester key.PublicKey, cap string, g *Grant) (int, string) {
	if g == nil {
		return -1, WhyNoGrant
	}
	// Rule 1 and 2.
	if why := c.valid(g, requester, cap); why != "" {
		return rankFor(why), why
	}
	// Rule 3: issued here, or by a trusted key...
	if c.trusts(g.Iss) {
		return rankOK, ""
	}
	// ...or by a key holding introduce from a trusted key.
	res, done := c.intro[g.Iss]
	if !done {
		res = c.introduced(g.Iss)
		c.intro[g.Iss] = res
	}
	if res.ok {
		return rankOK, ""
	}
	return rankIssuer, res.why
}

// introduced reports whether iss holds an introduce grant honored under
// rules 1 and 2 and issued by a trusted key. One level only: the introduce
// grant's issuer must itself be trusted, not introduced.
func (c *check) introduced(iss key.PublicKey) introResult {
	why := WhyNotTrusted
	introRank := -1
	for _, in := range slices.Concat(c.stored(iss), c.all) {
		if in == nil || in.Sub != iss || !in.Has(CapIntroduce) {
			continue
		}
		r, w := rankExp, ""
		switch v := c.valid(in, iss, CapIntroduce); v {
		case "":
			if c.trusts(in.Iss) {
				return introResult{ok: true}
			}
			r, w = rankIssuer, WhyIntroIssuer
		case WhyExpired:
			w = WhyIntroExpired
		case WhyNotOn:
			r, w = rankOn, WhyIntroNotOn
		case WhyBadSig:
			r, w = rankSig, WhyIntroBadSig
		default:
			w = v
		}
		if r > introRank {
			introRank = r
			why = WhyNotTrusted + " (" + w + ")"
		}
	}
	return introResult{why: why}
}

// valid checks rules 1 and 2 for g: sub, cap, time, on, signature. It
// returns "" when they hold, else the Why… of the first that fails. The
// signature is checked last because it is the expensive check.
func (c *check) valid(g *Grant, sub key.PublicKey, cap string) string {
	switch {
	case g.Sub != sub:
		return WhyWrongSub
	case !g.Has(cap):
		return WhyWrongCap
	case g.Expired(c.now):
		return WhyExpired
	case !g.OnAllows(c.Self):
		return WhyNotOn
	case !c.verified(g):
		return WhyBadSig
	}
	return ""
}

// stored returns the peer's stored grants for sub (see Checker.Stored),
// marked as verified.
func (c *check) stored(sub key.PublicKey) []*Grant {
	if c.Stored == nil {
		return nil
	}
	gs := c.Stored(sub)
	for _, g := range gs {
		c.sig[g] = true
	}
	return gs
}

func (c *check) verified(g *Grant) bool {
	ok, done := c.sig[g]
	if !done {
		ok = g.Verify() == nil
		c.sig[g] = ok
	}
	return ok
}

func rankFor(why string) int {
	switch why {
	case WhyWrongSub:
		return rankSub
	case WhyWrongCap:
		return rankCap
	case WhyExpired:
		return rankExp
	case WhyNotOn:
		return rankOn
	default:
		return rankSig
	}
}
