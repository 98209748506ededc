package peer

import "github.com/awp-tray/awp-tray/peer/store"

// warmBuffers faults in, and keeps for good, the buffers of one blob
// transfer each way (Config.WarmBuffers): the chunks the receiver's
// in-flight budget holds, every chunk line buffer the pool keeps (a
// sender's write queue and the lines being built and written took more
// than the queue's 4 MiB: with 8 warmed, a sender still faulted in more),
// the sender's read-ahead windows (the current one, the next, one on its
// way back), staging's blocks and the large read buffers of two sessions.
// It returns the bytes warmed. The pools are the process's, so a second
// node warms nothing new.
func warmBuffers() int {
	chunks := maxInflight / chunkBufSize
	const windows = 3
	const readers = 2 // the receiving session's, and one for a second
	chunkBufs.Warm(chunks)
	lineBufs.Warm(maxLineBufs)
	readAheadBufs.Warm(windows)
	readBufs.Warm(readers)
	return chunks*chunkBufs.Size() + maxLineBufs*lineBufs.Size() + windows*readAheadBufs.Size() +
		readers*readBufs.Size() + store.WarmStaging()
}
