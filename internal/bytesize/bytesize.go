// Package bytesize writes a byte count for people: 512 B, 1.5 KiB,
// 3.2 MiB. It owns that one format, shared by the tray's windows and the
// command line; it must not parse sizes (flags take plain numbers).
package bytesize

import "fmt"

// Format formats a byte count: whole bytes below 1 KiB, else one decimal
// in the largest binary unit (KiB to PiB) that keeps the number at or
// above 1.
func Format(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 4; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTP"[exp])
}
