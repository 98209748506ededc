package peer

import (
	"reflect"
	"testing"

	"github.com/awp-tray/awp-tray/peer/store"
)

// TestPickAhead: lines of other threads go past a blob's chunks, but never
// past an unsent line of their own thread, and chunks never go ahead.
func TestPickAhead(t *testing.T) {
	chunk := &store.ChunkRef{Ref: "b", File: "f", Len: 1}
	raw := []byte("{}")
	rest := []store.Out{ // the batch from the chunk being sent on
		{Seq: 10, Th: "thr_blob", ID: "A10", Chunk: chunk},
		{Seq: 11, Th: "thr_blob", ID: "A11", Chunk: chunk},
		{Seq: 12, Th: "thr_late", ID: "A12", Raw: raw}, // sent ahead before
	}
	ahead := aheadLines{12: true}
	outs := []store.Out{
		{Seq: 13, Th: "thr_blob", ID: "A13", Raw: raw},                 // behind its own chunks: waits
		{Seq: 14, Th: "thr_chat", ID: "A14", Raw: raw},                 // goes
		{Seq: 15, Th: "thr_other", ID: "A15", Chunk: chunk},            // a chunk: waits, and blocks thr_other
		{Seq: 16, Th: "thr_chat", ID: "A16", Raw: raw},                 // after a line that went: goes
		{Seq: 17, Th: "thr_other", ID: "A17", Raw: raw},                // behind its thread's chunk: waits
		{Seq: 18, Th: "thr_mirror", ID: "A18", Raw: raw, Mirror: true}, // not sendable: waits
		{Seq: 19, Th: "thr_mirror", ID: "A19", Raw: raw},               // behind it: waits
		{Seq: 20, Th: "thr_late", ID: "A20", Raw: raw},                 // its earlier line went ahead: goes
		{Seq: 21, Th: "thr_chat", ID: "A21", Raw: raw},                 // goes
	}
	sendable := func(o store.Out) bool { return sendableAhead(o, map[string]string{}, false) }
	var got []uint64
	for _, o := range pickAhead(outs, blockedBy(rest, ahead), ahead, sendable) {
		got = append(got, o.Seq)
	}
	if want := []uint64{14, 16, 20, 21}; !reflect.DeepEqual(got, want) {
		t.Fatalf("sent ahead %v, want %v", got, want)
	}
}

// TestSendableAhead: a line the peer's resume holds, or a mirror line to a
// peer without the capability, or one gone from its thread, is left to the
// main loop.
func TestSendableAhead(t *testing.T) {
	seen := map[string]string{"thr_a": "B"}
	for _, c := range []struct {
		o    store.Out
		want bool
	}{
		{store.Out{Th: "thr_a", ID: "a", Raw: []byte("x")}, false},
		{store.Out{Th: "thr_a", ID: "c", Raw: []byte("x")}, true},
		{store.Out{Th: "thr_b", ID: "c"}, false},
		{store.Out{Th: "thr_b", ID: "c", Raw: []byte("x"), Mirror: true}, false},
	} {
		if got := sendableAhead(c.o, seen, false); got != c.want {
			t.Errorf("%+v: %v, want %v", c.o, got, c.want)
		}
	}
}

// TestChunkFlight: acks are cumulative within a thread and free only that
// thread's chunks; the window fills at chunkWindow.
func TestChunkFlight(t *testing.T) {
	var f chunkFlight
	half := chunkWindow / 2
	f.add("thr_a", "a1", half)
	f.add("thr_b", "b1", half/2)
	f.add("thr_a", "a2", half)
	if !f.full() {
		t.Fatal("not full at the window")
	}
	f.acked("thr_b", "a2") // another thread's ack: thr_b's b1 > A2? no: "B1" > "A2", kept
	if f.bytes != 2*half+half/2 {
		t.Fatalf("bytes %d after an ack below thr_b's chunk", f.bytes)
	}
	f.acked("thr_a", "a1")
	if f.full() || f.bytes != half+half/2 {
		t.Fatalf("bytes %d after acking a1", f.bytes)
	}
	select {
	case <-f.changed:
	default:
		t.Fatal("an ack that freed room did not signal")
	}
	f.acked("thr_a", "a9")
	f.acked("thr_b", "b1")
	if f.bytes != 0 || len(f.threads) != 0 {
		t.Fatalf("after all acks: %d bytes, %d threads", f.bytes, len(f.threads))
	}
}
