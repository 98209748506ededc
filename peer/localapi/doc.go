// Package localapi is the control socket of a running AWP peer: the
// `DATA/awp.sock` unix socket that the `awp` command line, the tray app's
// helpers and scripts use to drive the node.
//
// # Protocol
//
// HTTP/1.1 over the unix socket, one endpoint per command, JSON bodies,
// everything under the version prefix /v0/:
//
//	GET  /v0/id                     → {"key","name","listen":[…],"workspace","data_dir"}
//	POST /v0/connect {addr}         → {"key"}
//	POST /v0/send    SendRequest    → SendResult
//	POST /v0/state   {th,state,note}→ SendResult
//	GET  /v0/threads                → [ThreadInfo]
//	GET  /v0/thread?th=&from=       → ThreadInfo
//	GET  /v0/lines?th=&from=&after=&limit= → [LineInfo] (after a seq, up to limit; both optional)
//	                                  last=N: only the last N, read from the end
//	POST /v0/read    {th,from}      → {}
//	GET  /v0/peers                  → [PeerInfo]
//	POST /v0/trust   {key,trusted}  → {}
//	GET  /v0/blobs                  → [BlobInfo]
//	GET  /v0/blob?from=&ref=        → the bytes; header Awp-Blob holds BlobInfo as JSON
//	GET  /v0/watch?buf=             → NDJSON: one Event per line, flushed per event
//	GET  /v0/pending                → [ApprovalRequest]
//	GET  /v0/pending/history        → [ApprovalRecord] (decided since the node started, newest first)
//	POST /v0/decide  {id,decision}  → {}
//	POST /v0/grant   {to,caps,ttl,on,note} → the grant object (ttl: a Go duration)
//	GET  /v0/grants                 → [GrantInfo]
//	POST /v0/revoke  {id}           → {}
//	POST /v0/request {to,mime,data,th} → the result part's data; an err line: 502 peer_err
//	GET  /v0/presence               → [{"doc","hops","received","from"}], doc byte for byte
//	GET  /v0/presence/detail        → {"detail"}
//	POST /v0/presence/detail {detail} → {"detail"}
//	GET  /v0/mirror/hosts           → [KEY]
//	POST /v0/mirror/hosts {hosts}   → [KEY] (the hosts now set)
//	POST /v0/mirror  {th,on}        → {}
//	POST /v0/private {th,from}      → SendResult
//	GET  /v0/invite                 → {"invite"}
//	POST /v0/add     {invite}       → {"key"}; a failure after recording the peer carries "key"
//	GET  /v0/exec-sandbox           → {"mode","sandbox","network","available","reason"?}
//	POST /v0/exec-sandbox {mode}    → the same, after the change (mode: auto, bwrap or none)
//	GET  /v0/retention              → {"keep_threads","keep_blobs"} ("90d", "36h" or "off")
//	POST /v0/retention {keep_threads?,keep_blobs?} → the same, as now set
//
// A failure is a non-2xx status with the body {"error":MSG,"code":CODE};
// the client turns it into a *RemoteError whose Error is MSG, and maps the
// codes "canceled" and "deadline_exceeded" back to context.Canceled and
// context.DeadlineExceeded. A profile request answered by an err line fails
// with status 502, code "peer_err" and the err line in "err"; the client's
// RemoteError unwraps to that *wire.Err. Lists are always JSON arrays,
// never null.
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
// New endpoints are added as further /v0/ routes and Client methods; old
// clients keep working.
//
// It owns the control socket's protocol, server and client. It must not
// keep node state of its own, listen anywhere but the data directory's
// socket, or change the node's error messages.
package localapi
