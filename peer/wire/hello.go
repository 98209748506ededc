package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/awp-tray/awp-tray/peer/key"
)

var b64url = key.B64

// Version is the protocol version this peer speaks.
const Version = 0

// Hello opens a connection (docs/protocol/handshake.md).
type Hello struct {
	Head
	V      json.RawMessage `json:"v"`
	Key    string          `json:"key"`
	Name   string          `json:"name,omitempty"`
	Nonce  string          `json:"nonce"`
	Caps   []string        `json:"caps"`
	About  string          `json:"about,omitempty"`
	Listen []string        `json:"listen,omitempty"`
}

// Hello check errors, mapped to err codes by the session.
var (
	// ErrUnsupportedVersion is returned by CheckHello when v is an integer other than 0.
	ErrUnsupportedVersion = errors.New("unsupported version")
	// ErrBadHello is returned by CheckHello when v, key or nonce is malformed.
	ErrBadHello = errors.New("malformed hello")
)

// CheckHello validates a received hello and returns its key: a missing or
// non-integer v, a bad key or a nonce under 16 bytes is ErrBadHello; an
// integer v other than 0 is ErrUnsupportedVersion.
func (h *Hello) CheckHello() (key.PublicKey, error) {
	if err := needID(&h.Head); err != nil {
		return key.PublicKey{}, fmt.Errorf("%w: %v", ErrBadHello, err)
	}
	if len(h.V) == 0 {
		return key.PublicKey{}, fmt.Errorf("%w: no v", ErrBadHello)
	}
	// Check the literal itself: json.Number would also accept the string "0",
	// and 1e0 and 0.0 are not integers here.
	s := string(bytes.TrimSpace(h.V))
	if !isIntLiteral(s) {
		return key.PublicKey{}, fmt.Errorf("%w: v %s is not an integer", ErrBadHello, clip(s))
	}
	if v, err := strconv.ParseInt(s, 10, 64); err != nil || v != Version {
		// An integer too large for int64 is still an integer other than 0.
		return key.PublicKey{}, fmt.Errorf("%w: v %s", ErrUnsupportedVersion, clip(s))
	}
	k, err := key.ParsePublic(h.Key)
	if err != nil {
		return key.PublicKey{}, fmt.Errorf("%w: %v", ErrBadHello, err)
	}
	nonce, err := b64url.DecodeString(h.Nonce)
	if err != nil || len(nonce) < 16 {
		return key.PublicKey{}, fmt.Errorf("%w: nonce must be at least 16 bytes of base64url", ErrBadHello)
	}
	return k, nil
}

// isIntLiteral reports whether s is a JSON integer: -?(0|[1-9][0-9]*).
func isIntLiteral(s string) bool {
	s = strings.TrimPrefix(s, "-")
	if s == "" || (s[0] == '0' && len(s) > 1) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// HasCap reports whether the hello lists capability c.
func (h *Hello) HasCap(c string) bool {
	for _, x := range h.Caps {
		if x == c {
			return true
		}
	}
	return false
}

// NewHello builds this peer's hello.
func NewHello(id, ts string, k key.PublicKey, name, about string, caps, listen []string) *Hello {
	h := &Hello{Key: k.String(), Name: name, About: about, Caps: caps, Listen: listen, Nonce: NewNonce(16)}
	h.T, h.ID, h.TS = TypeHello, id, ts
	h.V = json.RawMessage("0")
	return h
}

// Auth proves the sender holds its hello's key (docs/protocol/handshake.md).
type Auth struct {
	Head
	Sig string `json:"sig"`
}

// AuthContext is the prefix of the signed auth bytes.
const AuthContext = "awp-auth-v0"

// AuthMessage returns "awp-auth-v0" 0x00 signer's hello 0x00 other hello:
// what the signer of an auth signs.
func AuthMessage(signerHello, otherHello []byte) []byte {
	m := make([]byte, 0, len(AuthContext)+2+len(signerHello)+len(otherHello))
	m = append(m, AuthContext...)
	m = append(m, 0)
	m = append(m, signerHello...)
	m = append(m, 0)
	m = append(m, otherHello...)
	return m
}

// Resume lists, per thread, the last id durably received from the peer (docs/protocol/acks-and-resume.md).
type Resume struct {
	Head
	Seen map[string]string `json:"seen"`
}

func (r *Resume) validate() error {
	for th, id := range r.Seen {
		if !ValidThread(th) || !ValidID(id) {
			return fmt.Errorf("resume: bad entry %q: %q", clip(th), clip(id))
		}
	}
	return nil
}
