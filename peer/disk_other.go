//go:build !linux && !darwin && !windows

package peer

import "errors"

// statfs cannot read the free space here: room then says yes, and the
// write decides.
func statfs(string) (free, total uint64, err error) {
	return 0, 0, errors.ErrUnsupported
}
