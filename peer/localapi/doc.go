// Package localapi is the control socket of a running AWP peer: the
// `DATA/awp.sock` unix socket that the `awp` command line, the tray app's
// helpers and scripts use to drive the node.
//
// # Protocol
//
// HTTP/1.1 over the unix socket, one endpoint per command, JSON bodies,
// everything under the version prefix /v0/:
//
//	GET  /v0/id                     → {"key","name","listen":[…]}
//	POST /v0/connect {addr}         → {"key"}
//	POST /v0/send    SendRequest    → SendResult
//	POST /v0/state   {th,state,note}→ SendResult
//	GET  /v0/threads                → [ThreadInfo]
//	GET  /v0/lines?th=&from=        → [LineInfo]
//	POST /v0/read    {th,from}      → {}
//	GET  /v0/peers                  → [PeerInfo]
//	POST /v0/trust   {key,trusted}  → {}
//	GET  /v0/blobs                  → [BlobInfo]
//	GET  /v0/blob?from=&ref=        → the bytes; header Awp-Blob holds BlobInfo as JSON
//	GET  /v0/watch?buf=             → NDJSON: one Event per line, flushed per event
//	GET  /v0/pending                → [ApprovalRequest]
//	POST /v0/decide  {id,decision}  → {}
//
// A failure is a non-2xx status with the body {"error":MSG,"code":CODE};
// the client turns it into a *RemoteError whose Error is MSG, and maps the
// codes "canceled" and "deadline_exceeded" back to context.Canceled and
// context.DeadlineExceeded. Lists are always JSON arrays, never null.
//
// # Basics
//
// The node side sets Server.Backend (a *peer.Node satisfies Backend),
// calls Listen(SocketPath(dataDir)) and then Server.Serve. Listen refuses
// with ErrAlreadyRunning when another process answers on the socket,
// removes a stale socket file otherwise, and leaves the socket mode 0600.
// The client side calls NewClient(SocketPath(dataDir)); every method
// returns an error matching ErrNotRunning when nothing listens.
//
// # Caveats
//
// Listen's "already running" check and the removal of a stale socket are
// not atomic: two processes starting at the same instant could both pass
// it. The node's store lock (peer.New) is the real single-instance guard;
// callers open the node before they call Listen.
//
// New endpoints (grants, requests, presence, mirror toggles, invites) are
// added as further /v0/ routes and Client methods; old clients keep working.
package localapi
