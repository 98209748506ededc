package peer

import (
	"encoding/json"
	"time"

	"github.com/awp-tray/awp-tray/peer/store"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// inspectMsg looks at a received msg for grants, grant requests, profile
// requests and answers to this node's own requests.
func (n *Node) inspectMsg(tx *store.Tx, s *session, m *wire.Msg, res *inResult) {}

// onRemoteErr delivers an err line that answers one of this node's requests.
func (n *Node) onRemoteErr(s *session, e *wire.Err) {}

// storeGrantRaw stores a received grant whose signature verifies.
func (n *Node) storeGrantRaw(tx *store.Tx, raw json.RawMessage, now time.Time) {}
