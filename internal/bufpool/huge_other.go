//go:build !linux

package bufpool

func adviseHuge(b []byte) {}
