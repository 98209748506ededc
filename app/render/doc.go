// Package render turns what the node returns (wire lines, threads,
// approval requests) into display models: plain values the Fyne views
// show as they are. It has no Fyne and no node in it, so every rendering
// decision is a pure function tested on JSON.
//
// # Basics
//
// Decode turns one peer.LineInfo into an Entry (a header and its Parts,
// one per wire part or one for a state, introduce or notice). Rows
// flattens entries into one-line Rows for the virtualized thread list: a
// row is one line of text (wrapped at Options.Width runes) or one blob,
// so every row but blobs has the same height and a thread of 10,000
// lines scrolls like a list of strings.
//
// # Caveats
//
// Rows wraps by rune count, not by measured glyph width: the thread view
// picks a width that fits its font, and a row wider than the window is
// clipped (with an ellipsis) rather than wrapped again.
//
// It owns how lines, threads and approvals read on screen. It must not
// import Fyne or a node, and must not decode the wire by hand: lines are
// read with wire.DecodeLoose and the wire, profile, grant and peer types.
package render
