// Package peer is the embedded AWP node: listeners and dialers, one session
// per connected peer, the durable outbox, group-committed inbound lines,
// acks, resume and replay, blobs, and events for the UI and the local API.
//
// # Lifecycle
//
// Fill a Config, call New (opens the store), Start once, and Close (safe to
// call twice) to stop: Close ends every goroutine the node started.
//
// # How a line flows
//
// Inbound: a session's reader decodes a content line and hands it to the
// commit loop, which stores every line that is waiting in one bbolt
// transaction (one fsync), then queues one cumulative ack per thread on the
// session's writer and publishes events.
//
// Outbound: Send commits the line to the peer's outbox (and its thread)
// through the same commit loop, then wakes the peer's session; a session's
// sender walks the outbox in order, skipping what the peer's resume says it
// has, so replay always comes before anything new and per-thread order holds
// across reconnects. The writer goroutine alone writes to the connection.
//
// It owns sessions, routing, the commit loop, the node's API and events. It
// must not import Fyne, touch bbolt except through package store, or block
// on a subscriber; bounds on what peers can make it hold are named
// constants with their reasons.
package peer
