package peer

import (
	"github.com/awp-tray/awp-tray/peer/store"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// warmBuffers faults in, and keeps for good, the buffers of one blob
// transfer each way (Config.WarmBuffers): the chunks the receiver's
// in-flight budget holds, the chunk lines a session's write queue holds,
// the sender's read-ahead windows (the current one, the next, one on its
// way back) and staging's blocks. It returns the bytes warmed. The pools
// are the process's, so a second node warms nothing new.
func warmBuffers() int {
	chunks := maxInflight / chunkBufSize
	lines := writeLimit/wire.MaxLine + 4
	const windows = 3
	chunkBufs.Warm(chunks)
	lineBufs.Warm(lines)
	readAheadBufs.Warm(windows)
	return chunks*chunkBufs.Size() + lines*lineBufs.Size() + windows*readAheadBufs.Size() + store.WarmStaging()
}
