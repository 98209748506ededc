package localapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"

	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/key"
)

// maxBody bounds request bodies: a send request names blob files by path,
// so even a long message stays far below it.
const maxBody = 8 << 20

func (s *Server) handleID(w http.ResponseWriter, r *http.Request) {
	b := s.Backend
	writeJSON(w, Identity{Key: b.Key(), Name: b.Name(), Listen: nonNil(b.ListenAddrs()),
		Workspace: b.Workspace(), DataDir: b.DataDir()})
}

func (s *Server) handleConnect(w http.ResponseWriter, r *http.Request) {
	serve(s, w, r, "connect", func(req connectRequest) (any, error) {
		if req.Addr == "" {
			return nil, badRequest("localapi: connect: addr is required")
		}
		k, err := s.Backend.Connect(r.Context(), req.Addr)
		return connectResponse{Key: k}, err
	})
}

func (s *Server) handleSend(w http.ResponseWriter, r *http.Request) {
	serve(s, w, r, "send", func(req peer.SendRequest) (any, error) {
		return s.Backend.Send(r.Context(), req)
	})
}

func (s *Server) handleState(w http.ResponseWriter, r *http.Request) {
	serve(s, w, r, "state", func(req stateRequest) (any, error) {
		return s.Backend.SetState(r.Context(), req.Th, req.State, req.Note)
	})
}

func (s *Server) handleThreads(w http.ResponseWriter, r *http.Request) {
	ths, err := s.Backend.Threads()
	if err != nil {
		s.fail(w, "threads", err)
		return
	}
	writeThreads(w, ths) // threadsjson.go: the large answer, written directly
}

// handleLines lists a thread's lines; with after (a seq) and limit (0:
// all) it lists only the lines after that one, as many as limit.
func (s *Server) handleLines(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	th, from, ok := queryThread(w, q, "lines")
	if !ok {
		return
	}
	var (
		after uint64
		limit int
		err   error
		lines []peer.LineInfo
	)
	if v := q.Get("last"); v != "" {
		lines, err = s.linesLast(w, th, from, v)
		if lines == nil && err == nil {
			return // answered
		}
		if err != nil {
			s.fail(w, "lines", err)
			return
		}
		writeJSON(w, lines)
		return
	}
	if v := q.Get("after"); v != "" {
		if after, err = strconv.ParseUint(v, 10, 64); err != nil {
			writeError(w, http.StatusBadRequest, codeBadRequest, "localapi: lines: after must be a line's seq (a number)")
			return
		}
	}
	if v := q.Get("limit"); v != "" {
		if limit, err = strconv.Atoi(v); err != nil || limit < 0 {
			writeError(w, http.StatusBadRequest, codeBadRequest, "localapi: lines: limit must be 0 (all) or more")
			return
		}
	}
	if after == 0 && limit == 0 {
		lines, err = s.Backend.Lines(th, from)
	} else {
		lines, err = s.Backend.LinesAfter(th, from, after, limit)
	}
	if err != nil {
		s.fail(w, "lines", err)
		return
	}
	writeJSON(w, nonNil(lines))
}

func (s *Server) handleThread(w http.ResponseWriter, r *http.Request) {
	th, from, ok := queryThread(w, r.URL.Query(), "thread")
	if !ok {
		return
	}
	t, err := s.Backend.Thread(th, from)
	s.reply(w, "thread", t, err)
}

func (s *Server) handleRead(w http.ResponseWriter, r *http.Request) {
	serve(s, w, r, "read", func(req readRequest) (any, error) {
		return struct{}{}, s.Backend.MarkRead(req.Th, req.From)
	})
}

func (s *Server) handlePeers(w http.ResponseWriter, r *http.Request) {
	ps, err := s.Backend.Peers()
	for i := range ps {
		ps[i].Listen = nonNil(ps[i].Listen)
	}
	s.reply(w, "peers", nonNil(ps), err)
}

func (s *Server) handleTrust(w http.ResponseWriter, r *http.Request) {
	serve(s, w, r, "trust", func(req trustRequest) (any, error) {
		return struct{}{}, s.Backend.Trust(req.Key, req.Trusted)
	})
}

func (s *Server) handleBlobs(w http.ResponseWriter, r *http.Request) {
	bs, err := s.Backend.Blobs()
	s.reply(w, "blobs", nonNil(bs), err)
}

// handleBlob streams a blob's bytes; its BlobInfo travels in a header so
// the client can check size and digest before trusting the bytes.
func (s *Server) handleBlob(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	from, ok := queryKey(w, q, "blob", "from")
	if !ok {
		return
	}
	rc, info, err := s.Backend.OpenBlob(from, q.Get("ref"))
	if err != nil {
		s.fail(w, "blob", err)
		return
	}
	defer rc.Close()
	hdr, err := json.Marshal(info)
	if err != nil {
		s.fail(w, "blob", err)
		return
	}
	w.Header().Set(blobHeader, string(hdr))
	w.Header().Set("Content-Type", "application/octet-stream")
	if info.Size >= 0 {
		w.Header().Set("Content-Length", strconv.FormatInt(info.Size, 10))
	}
	if _, err := io.Copy(w, rc); err != nil {
		// The status is out already; the client sees a short body.
		s.logger().Warn("localapi: blob: copy", "ref", info.Ref, "err", err)
	}
}

func (s *Server) handlePending(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, nonNil(s.Backend.Pending()))
}

func (s *Server) handleApprovalHistory(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, nonNil(s.Backend.ApprovalHistory()))
}

func (s *Server) handleDecide(w http.ResponseWriter, r *http.Request) {
	serve(s, w, r, "decide", func(req decideRequest) (any, error) {
		return struct{}{}, s.Backend.Decide(req.ID, req.Decision)
	})
}

// serve answers a POST endpoint: it decodes the body into a T (400 when
// it cannot), calls do with it and answers with what do returns (reply).
// do returns a badRequest for a request it refuses before calling the
// node.
func serve[T any](s *Server, w http.ResponseWriter, r *http.Request, op string, do func(req T) (any, error)) {
	var req T
	if !s.decode(w, r, &req) {
		return
	}
	v, err := do(req)
	s.reply(w, op, v, err)
}

// reply answers with v, or with the failure err (fail) when err is not
// nil. A json.RawMessage goes out byte for byte (writeRaw): writeJSON
// would compact it.
func (s *Server) reply(w http.ResponseWriter, op string, v any, err error) {
	switch raw, isRaw := v.(json.RawMessage); {
	case err != nil:
		s.fail(w, op, err)
	case isRaw:
		writeRaw(w, raw)
	default:
		writeJSON(w, v)
	}
}

// badRequest is a request refused before the node was asked: status 400,
// code bad_request, the message as it is.
type badRequest string

func (e badRequest) Error() string { return string(e) }

// decode reads a JSON request body into v, answering 400 when it cannot.
func (s *Server) decode(w http.ResponseWriter, r *http.Request, v any) bool {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxBody))
	if err := dec.Decode(v); err != nil {
		writeError(w, http.StatusBadRequest, codeBadRequest, fmt.Sprintf("localapi: bad request body: %v", err))
		return false
	}
	return true
}

// queryThread reads the thread a GET names: th (required) and from (the
// sharer of a mirrored thread, absent for the node's own), answering 400
// when th is missing or from is not a key.
func queryThread(w http.ResponseWriter, q url.Values, op string) (string, key.PublicKey, bool) {
	th := q.Get("th")
	if th == "" {
		writeError(w, http.StatusBadRequest, codeBadRequest, "localapi: "+op+": th is required")
		return "", key.PublicKey{}, false
	}
	from, ok := queryKey(w, q, op, "from")
	return th, from, ok
}

// queryKey reads the key in query parameter name ("" or absent: the zero
// key), answering 400 with the parse error when it is not a key.
func queryKey(w http.ResponseWriter, q url.Values, op, name string) (key.PublicKey, bool) {
	var k key.PublicKey
	if err := k.UnmarshalText([]byte(q.Get(name))); err != nil {
		writeError(w, http.StatusBadRequest, codeBadRequest, fmt.Sprintf("localapi: %s: %s: %v", op, name, err))
		return k, false
	}
	return k, true
}

// fail reports a backend error with its message unchanged.
func (s *Server) fail(w http.ResponseWriter, op string, err error) {
	s.failBody(w, op, err, errorBody{})
}

// failBody is fail with extra fields (Key) in the failure body. An err
// line answering a profile request goes back whole, with status 502.
func (s *Server) failBody(w http.ResponseWriter, op string, err error, eb errorBody) {
	code := errorCode(err)
	status := http.StatusInternalServerError
	switch code {
	case codeCanceled:
		status = 499 // the client went away (nginx's convention)
	case codeDeadline:
		status = http.StatusGatewayTimeout
	case codePeerErr:
		status = http.StatusBadGateway
		errors.As(err, &eb.Err)
	case codeBadRequest:
		status = http.StatusBadRequest
	case codeSelfAddress:
		status = http.StatusConflict // the address is fine; it is this node's
	}
	s.logger().Debug("localapi: request failed", "op", op, "err", err)
	eb.Error, eb.Code = err.Error(), code
	writeBody(w, status, eb)
}

func writeError(w http.ResponseWriter, status int, code, msg string) {
	writeBody(w, status, errorBody{Error: msg, Code: code})
}

func writeBody(w http.ResponseWriter, status int, eb errorBody) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(eb)
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // a write error means the client is gone
}

// nonNil makes an empty list encode as [] rather than null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
