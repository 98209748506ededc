// Package grant signs, parses and verifies AWP grants (docs/protocol/grants.md) and
// applies the honor rule.
//
// # Basics
//
// A grant is a JSON object signed by its issuer ("iss") that gives its
// subject ("sub") capabilities ("caps") until "exp". Parse decodes one
// strictly and keeps the exact bytes in Grant.Raw: the signature covers the
// canonical JSON of the whole object without "sig", unknown fields included,
// so a grant is always forwarded and verified from Raw, never re-encoded from
// its decoded fields. Sign makes a new grant.
//
// Checker.Honors applies the honor rule over the union of the grants
// attached to a request and those the peer has stored.
//
// # Caveats
//
// The package is pure: it stores nothing and reads no clock unless
// Checker.Now is nil. Storing grants (until they expire) is the caller's job.
// A Grant is immutable after Parse or Sign; changing its fields does not
// change what Verify checks (Raw), and Honors trusts the decoded fields only
// after Verify has checked Raw — so never edit a Grant, parse a new one.
//
// It owns the grant format and the honor rule. It must stay pure: no store,
// no network, no logging, and no clock but the one it is given.
package grant
