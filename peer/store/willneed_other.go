//go:build !linux

package store

func willNeed([]byte) {}
