// Package icon draws the tray icon: a disc whose look says, at a glance,
// whether any peer is connected, how many lines are unread and whether an
// approval is waiting; in a variant for dark panels and one for light
// ones.
//
// # Basics
//
// RenderLook draws one Look for one Panel at one size with nothing but
// pixel work, so the same inputs always give the same pixels (and the
// same PNG bytes). Cache wraps it for the tray: it keeps the last icon
// and draws again only when the look or the panel changes. ICO packs the
// sizes Windows picks from into one icon file (fyne.io/systray wants one
// there); SVG draws the same shapes for the scalable app icon.
//
// # The look
//
//   - online (at least one peer up): a teal disc with two nodes joined by
//     a wire;
//   - offline: a grey disc, the wire cut in the middle;
//   - an approval waiting: an amber disc with an exclamation mark,
//     whatever the peers;
//   - unread lines: a badge at the top right with the count, 1 to 9, then
//     "9+", kept apart from the disc by a ring of panel.
//
// For a dark panel the discs are bright and the marks near black; for a
// light panel the discs are deep and the marks white (Palettes). Every
// size has its own layout on the pixel grid: strokes of whole pixels on
// the center line, a 3×5 font for the digits at 16 px and a 5×7 one at 22
// and 24 px; 32, 44 and 48 px are the 16, 22 and 24 px layouts doubled.
// Tests check the contrast of every part against what it meets, in
// pixels, on real panel colors, at every tray size.
//
// It owns the icon's pixels; it must not read node state (the tray hands
// it a State) or import Fyne's app or widgets (the tray process has no
// windows).
package icon
