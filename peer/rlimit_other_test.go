//go:build !linux && !darwin

package peer

import "testing"

// limitOpenFiles: there is no descriptor limit to lower here (Windows
// has handles, not RLIMIT_NOFILE); the test that needs one skips.
func limitOpenFiles(t *testing.T, n uint64) bool { return false }
