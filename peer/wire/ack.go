package wire

import "fmt"

// Ack says every content line of Th up to and including Of is stored (docs/protocol/acks-and-resume.md).
type Ack struct {
	Head
	Of string `json:"of"`
}

func (a *Ack) validate() error {
	if !ValidThread(a.Th) || !ValidID(a.Of) {
		return fmt.Errorf("ack needs th and of")
	}
	return nil
}

// NewAck builds an ack.
func NewAck(th, of string) *Ack {
	a := &Ack{Of: of}
	a.T, a.Th = TypeAck, th
	return a
}

// Err reports a problem (docs/protocol/framing.md).
type Err struct {
	Head
	Code    string `json:"code"`
	Msg     string `json:"msg,omitempty"`
	Re      string `json:"re,omitempty"`
	RetryMS int64  `json:"retry_ms,omitempty"`
}

// Error makes a received Err usable as a Go error.
func (e *Err) Error() string {
	if e.Msg != "" {
		return fmt.Sprintf("awp: %s: %s", e.Code, e.Msg)
	}
	return "awp: " + e.Code
}

// NewErr builds an err line.
func NewErr(id, ts, code, msg, re, th string) *Err {
	e := &Err{Code: code, Msg: msg, Re: re}
	e.T, e.ID, e.TS, e.Th = TypeErr, id, ts, th
	return e
}
