//go:build !(linux || freebsd || netbsd || openbsd || dragonfly || windows || darwin)

package appearance

import (
	"context"
	"errors"
)

// watch: this platform has no known source; the icon uses the mode's
// default (the dark-panel variant under auto).
func watch(ctx context.Context, changed func(Scheme)) (Scheme, error) {
	return NoPreference, errors.New("appearance: no color scheme source on this platform")
}
