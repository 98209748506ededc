package render

import (
	"encoding/json"
	"fmt"

	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/key"
)

// bigThread makes n alternating text lines.
func bigThread(n int) []peer.LineInfo {
	out := make([]peer.LineInfo, n)
	for i := range out {
		dir, from := "in", alice
		if i%2 == 1 {
			dir, from = "out", bob
		}
		out[i] = peer.LineInfo{Dir: dir, From: key.MustParsePublic(from), Seq: uint64(i + 1), Line: json.RawMessage(fmt.Sprintf(
			`{"t":"msg","id":"%026d","ts":"2026-09-25T17:03:11Z","th":"thr_big","parts":[{"k":"text","text":"line %d"}]}`, i, i))}
	}
	return out
}
