package profile

import "encoding/json"

// Grants are the grants a request's data may carry (docs/protocol/profile.md
// "Grants and failures"): "grant", the one that authorizes it, and
// "grants", more (such as the introduce grant that makes the first one's
// issuer honored). Embed it in a request type to send them; grant.Attached
// reads them on the other side, and Handle ignores them.
type Grants struct {
	Grant  json.RawMessage   `json:"grant,omitempty"`
	Grants []json.RawMessage `json:"grants,omitempty"`
}
