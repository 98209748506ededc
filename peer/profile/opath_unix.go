//go:build unix && !linux

package profile

// oPath: without O_PATH a directory is opened for reading to walk from it.
const oPath = 0
