package localapi

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/key"
)

// MaxLast bounds ?last=: one answer holds at most this many lines (a
// client pages further back with its own calls).
const MaxLast = 100_000

// linesLast answers ?last=v. It returns (nil, nil) when it has answered
// with an error already.
func (s *Server) linesLast(w http.ResponseWriter, th string, from key.PublicKey, v string) ([]peer.LineInfo, error) {
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > MaxLast {
		writeError(w, http.StatusBadRequest, codeBadRequest, fmt.Sprintf("localapi: lines: last %q: want a number from 1 to %d", v, MaxLast))
		return nil, nil
	}
	lines, err := s.Backend.LinesLast(th, from, n)
	return nonNil(lines), err
}

// LinesLast returns the last n lines of thread th, in order (from: the
// sharer of a mirrored thread, "" for the peer's own).
func (c *Client) LinesLast(ctx context.Context, th string, from key.PublicKey, n int) ([]peer.LineInfo, error) {
	res := []peer.LineInfo{}
	q := url.Values{"th": {th}, "last": {strconv.Itoa(n)}}
	if !from.IsZero() {
		q.Set("from", from.String())
	}
	err := c.call(ctx, "show", http.MethodGet, "/v0/lines", q, nil, &res)
	return nonNil(res), err
}
