package wire

import (
	"encoding/json"
	"errors"
)

// Mirror carries a line of a thread the sharer has with another party, or
// withdraws a mirrored thread (docs/protocol/mirror.md).
type Mirror struct {
	Head
	Of       string          `json:"of,omitempty"`
	Dir      string          `json:"dir,omitempty"`
	Line     json.RawMessage `json:"line,omitempty"`
	Withdraw bool            `json:"withdraw,omitempty"`
}

func (m *Mirror) validate() error {
	if err := needThread(&m.Head); err != nil {
		return err
	}
	if m.Withdraw {
		return nil
	}
	if m.Dir != "in" && m.Dir != "out" {
		return errors.New(`mirror dir must be "in" or "out"`)
	}
	if len(m.Line) == 0 || firstNonSpace(m.Line) != '{' {
		return errors.New("mirror needs a line object")
	}
	return nil
}

// Private asks the sharer to stop mirroring a thread (docs/protocol/mirror.md).
type Private struct{ Head }

func (p *Private) validate() error { return needThread(&p.Head) }
