package wire

import (
	"encoding/json"
	"errors"

	"github.com/awp-tray/awp-tray/peer/key"
)

// Card describes a peer: the introduce line's peer, and an invite.
type Card struct {
	Key    string   `json:"key"`
	Name   string   `json:"name,omitempty"`
	Listen []string `json:"listen,omitempty"`
	About  string   `json:"about,omitempty"`
}

// Introduce tells the receiver about a third peer (docs/protocol/grants.md).
type Introduce struct {
	Head
	Peer  Card            `json:"peer"`
	Note  string          `json:"note,omitempty"`
	Grant json.RawMessage `json:"grant,omitempty"`
}

func (i *Introduce) validate() error {
	if err := needThread(&i.Head); err != nil {
		return err
	}
	if _, err := key.ParsePublic(i.Peer.Key); err != nil {
		return errors.New("introduce needs peer.key")
	}
	return nil
}
