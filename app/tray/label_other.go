//go:build !(linux || freebsd || openbsd || netbsd || windows)

package tray

// menuLabel is the label as is: macOS menus have no access-key markers.
func menuLabel(s string) string { return s }
