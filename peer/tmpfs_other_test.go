//go:build !linux

package peer

import "errors"

// mountTmpfs: there is no tmpfs to mount here; the benchmark that needs
// one skips.
func mountTmpfs(dir, size string) (unmount func(), err error) {
	return nil, errors.ErrUnsupported
}
