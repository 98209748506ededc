//go:build !unix

package peer

import "time"

// cpuTime is 0 where there is no getrusage: benchmarks report no CPU
// figure there.
func cpuTime() time.Duration { return 0 }
