// Package wire is AWP's line format: framing, the line types, ids, times and
// canonical JSON. It depends on nothing else of ours but peer/key.
//
// # Protocol flow
//
// A connection is a byte stream of lines, each one JSON object ending in
// "\n", at most MaxLine bytes. Both sides send at once:
//
//	A → B  hello      B → A  hello     (key, nonce, caps)
//	A → B  auth       B → A  auth      (sig over both hellos' exact bytes)
//	A → B  resume     B → A  resume    (last id seen per thread)
//
// Then either side sends content lines (msg, state, chunk, introduce, mirror,
// private), each stored durably before the receiver answers with a
// cumulative ack per thread; presence and err lines are not content.
//
// # Raw bytes
//
// Every decoded Frame keeps the exact bytes it was decoded from (Raw):
// signatures cover exact bytes, replay and relay forward them unchanged, and
// unknown fields survive. Frames built locally get their Raw from Encode.
//
// It owns the line format. It depends on nothing of ours but peer/key, does
// no I/O but through the reader and writer it is given, and trusts nothing
// in a line: decoding checks, and callers decide.
package wire
