// Package store is the node's durable state in one bbolt file (awp.db) plus
// blob files beside it.
//
// # Basics
//
// Open a data directory with Open; read with View and write with Update,
// both of which hand the callback a Tx with domain methods (threads, lines,
// outbox, seen ids, blobs, peers, trust, settings). bbolt never leaves this
// package: callers see only copies of stored bytes.
//
// The node groups many writes into one Update (one fsync for many lines);
// Update is therefore cheap per line only when callers batch.
//
// # Layout
//
// Every bucket of awp.db:
//
//	threads   tkey → thread record (JSON)           tkey = ns byte + peer key (32) + th
//	lines     tkey → bucket: seq (8, BE) → line record (binary, raw line inside)
//	seen      peer → bucket: th → last id received   what resume lists; also the dedupe
//	outbox    peer → bucket: seq (8, BE) → out record (a line of my thread with the
//	          peer is stored once, in lines; its out record refers to it)
//	blobs     dir byte + peer (32) + ref → blob record (JSON); bytes in files
//	ranges    blob file → bucket: start (8, BE) → end (8, BE): an out-of-order
//	          blob's byte ranges, merged (blobranges.go)
//	usage     peer key (32) → lines (8, BE) + blobs (8, BE): what the peer has
//	          stored here, for its quota (usage.go)
//	peers     peer key (32) → peer record (JSON): name, listen, trust, introduced by
//	grants    grant id → grant record (JSON): the raw grant, exp, issued, revoked
//	settings  name → value (mirror_hosts)
//	meta      name → value (last_id: the newest line id made, so ids grow across restarts)
//
// Blob bytes live beside awp.db: blobs/in/ (received, named by a digest of
// sender and ref) and blobs/out/ (staged copies of files being sent).
//
// The outbox's per-thread index (which queued entries an ack of a thread
// releases) is kept in memory, rebuilt from the outbox at Open, and changed
// only when a transaction commits (Update holds a mutex through the commit).
// Earlier versions' dedupe and outth buckets are dropped at Open.
//
// # Caveats
//
// Blob bytes live in files under blobs/, written and fsync'ed before the
// transaction that records them commits. A crash between the two leaves
// bytes the record does not count; they are overwritten when the chunk is
// received again.
//
// It owns awp.db and the blob files. bbolt must not leave it, and it must
// not decide what the protocol means: the node does, and hands it records.
package store
