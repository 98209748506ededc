package localapi

import (
	"encoding/json"
	"net/http"
	"strconv"
)

// defaultWatchBuf is the subscriber buffer of a watch stream; the node
// drops events for a subscriber that falls this far behind.
const defaultWatchBuf = 256

// handleWatch streams events as NDJSON, one flushed line per event, until
// the client goes away, the server closes, or the node ends the
// subscription. The headers are flushed at once, so a client whose Watch
// returned is subscribed.
func (s *Server) handleWatch(w http.ResponseWriter, r *http.Request) {
	buf := defaultWatchBuf
	if v := r.URL.Query().Get("buf"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 1<<16 {
			writeError(w, http.StatusBadRequest, codeBadRequest, "localapi: watch: buf must be 1…65536")
			return
		}
		buf = n
	}
	fl, ok := w.(http.Flusher)
	if !ok {
		writeError(w, http.StatusInternalServerError, codeBackend, "localapi: watch: streaming unsupported")
		return
	}
	events, cancel := s.Backend.Subscribe(buf)
	defer cancel()
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	fl.Flush()
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	ctx := r.Context()
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-events:
			if !ok {
				return
			}
			if err := enc.Encode(ev); err != nil {
				s.logger().Debug("localapi: watch: write", "err", err)
				return
			}
			fl.Flush()
		}
	}
}
