//go:build linux || freebsd || openbsd || netbsd

package tray

import "strings"

// menuLabel escapes a label for dbusmenu, where "_" marks the access key
// and "__" is an underscore: a peer's "make_test" must not lose its "_".
func menuLabel(s string) string { return strings.ReplaceAll(s, "_", "__") }
