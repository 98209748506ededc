//go:build !linux

package bufpool

// mapSlab maps no memory here: Warm's buffers come from the heap.
func mapSlab(size, n int) [][]byte { return nil }
