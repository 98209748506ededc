// Package icon draws the tray icon: a disc whose look says, at a glance,
// whether any peer is connected, how many lines are unread and whether an
// approval is waiting.
//
// # Basics
//
// Render draws one State into an image with nothing but image/draw-level
// pixel work, so the same State always gives the same pixels (and the
// same PNG bytes). Cache wraps Render for the tray: it keeps the last
// rendered resource and draws again only when the look changes.
//
// # The look
//
//   - online (at least one peer up): a teal disc with two white nodes joined
//     by a wire;
//   - offline: a grey disc, the wire cut in the middle;
//   - an approval waiting: an amber disc with a white exclamation mark,
//     whatever the peers;
//   - unread lines: a red badge at the top right with the count in white
//     (1 to 99; more shows "99+").
//
// It owns the icon's pixels; it must not import Fyne or read node state
// (the app hands it a State).
package icon
