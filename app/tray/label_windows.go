//go:build windows

package tray

import "strings"

// menuLabel escapes a label for a Win32 menu, where "&" marks the access
// key and "&&" is an ampersand.
func menuLabel(s string) string { return strings.ReplaceAll(s, "&", "&&") }
