package grant

import "encoding/json"

// Object is a grant object's fields as its JSON says, decoded without any
// check: for showing a grant someone sent (a thread view, a listing).
// Nothing in it is trusted; Parse and Verify decide whether a grant counts.
type Object struct {
	Iss   string   `json:"iss"`
	Sub   string   `json:"sub"`
	Caps  []string `json:"caps"`
	Exp   string   `json:"exp"`
	On    []string `json:"on,omitempty"`
	Nonce string   `json:"nonce,omitempty"`
	Note  string   `json:"note,omitempty"`
	Sig   string   `json:"sig"`
}

// DecodeObject decodes raw into an Object. It fails only when raw is not
// a JSON object with fields of the right JSON types.
func DecodeObject(raw []byte) (Object, error) {
	var o Object
	err := json.Unmarshal(raw, &o)
	return o, err
}
