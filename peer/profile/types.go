package profile

import (
	"encoding/json"
	"fmt"
)

// Mime types of the profile's data parts (docs/protocol/profile.md).
const (
	MimeExec        = "application/vnd.awp.exec+json"
	MimeExecResult  = "application/vnd.awp.exec-result+json"
	MimeRead        = "application/vnd.awp.fs-read+json"
	MimeReadResult  = "application/vnd.awp.fs-read-result+json"
	MimeWrite       = "application/vnd.awp.fs-write+json"
	MimeWriteResult = "application/vnd.awp.fs-write-result+json"

	// MimePrefix begins every mime of AWP's own data parts: these, the
	// grant and the grant request and their answers. A msg of only such
	// parts is traffic between machines, not something a person wrote.
	MimePrefix = "application/vnd.awp."
)

// Cap returns the capability a request mime needs ("exec", "fs:read",
// "fs:write"), or "" when mime is not a profile request.
func Cap(mime string) string {
	switch mime {
	case MimeExec:
		return "exec"
	case MimeRead:
		return "fs:read"
	case MimeWrite:
		return "fs:write"
	}
	return ""
}

// ResultMime returns the result mime for a request mime, or "".
func ResultMime(mime string) string {
	switch mime {
	case MimeExec:
		return MimeExecResult
	case MimeRead:
		return MimeReadResult
	case MimeWrite:
		return MimeWriteResult
	}
	return ""
}

// ExecRequest is the data of an exec request. Unknown fields (such as
// "grant" and "grants") are ignored.
type ExecRequest struct {
	Cmd     json.RawMessage   `json:"cmd"`               // argv array, or a string run with /bin/sh -c
	Cwd     string            `json:"cwd,omitempty"`     // relative to the workspace root; default the root
	Env     map[string]string `json:"env,omitempty"`     // added to the runner's base environment
	Timeout int               `json:"timeout,omitempty"` // seconds; 0 means DefaultTimeout
	Stdin   string            `json:"stdin,omitempty"`   // written to the process, then closed
	// Network false asks for no network (an extension: sandboxed exec
	// only; an unsandboxed runner refuses the request rather than run it
	// with network). Absent or true: the runner's setting.
	Network *bool `json:"network,omitempty"`
}

// Argv returns the command line: an argv array as is, a string as
// ["/bin/sh", "-c", s]. It fails (wrapping ErrBadRequest) on anything else,
// an empty command, or an argument holding NUL.
func (r ExecRequest) Argv() ([]string, error) {
	var argv []string
	var s string
	switch {
	case len(r.Cmd) == 0:
		return nil, fmt.Errorf("%w: cmd missing", ErrBadRequest)
	case json.Unmarshal(r.Cmd, &s) == nil && string(r.Cmd) != "null":
		if s == "" {
			return nil, fmt.Errorf("%w: cmd is empty", ErrBadRequest)
		}
		argv = []string{"/bin/sh", "-c", s}
	case json.Unmarshal(r.Cmd, &argv) == nil && argv != nil:
		if len(argv) == 0 || argv[0] == "" {
			return nil, fmt.Errorf("%w: cmd is empty", ErrBadRequest)
		}
	default:
		return nil, fmt.Errorf("%w: cmd is neither a string nor an array of strings", ErrBadRequest)
	}
	for _, a := range argv {
		if hasNUL(a) {
			return nil, fmt.Errorf("%w: cmd holds a NUL byte", ErrBadRequest)
		}
	}
	return argv, nil
}

// ExecResult is the data of an exec result.
type ExecResult struct {
	Exit            int    `json:"exit"` // exit status; -1 when killed, timed out, or not started
	DurationMS      int64  `json:"duration_ms"`
	Stdout          string `json:"stdout"` // at most InlineMax bytes of UTF-8
	Stderr          string `json:"stderr"`
	StdoutTruncated bool   `json:"stdout_truncated"`
	StderrTruncated bool   `json:"stderr_truncated"`
	Error           string `json:"error,omitempty"`
}

// ReadRequest is the data of an fs:read request.
type ReadRequest struct {
	Path   string `json:"path"`
	Offset int64  `json:"offset,omitempty"`
	Length *int64 `json:"length,omitempty"` // nil: InlineMax, and a blob of the whole file when larger
}

// ReadResult is the data of an fs:read result, in one of three forms: a
// file (Encoding, Content, Size, Offset, EOF), a directory (Dir, Entries),
// or a failure (Error). MarshalJSON writes only the fields of its form.
type ReadResult struct {
	Path     string  `json:"path"`
	Size     int64   `json:"size"`
	Offset   int64   `json:"offset"`
	Encoding string  `json:"encoding"` // "utf-8" or "base64"
	Content  string  `json:"content"`
	EOF      bool    `json:"eof"`
	Dir      bool    `json:"dir,omitempty"`
	Entries  []Entry `json:"entries,omitempty"`
	// EntriesTruncated is set when a directory had more than MaxEntries
	// entries (an extension field; docs/protocol/profile.md has no such case).
	EntriesTruncated bool   `json:"entries_truncated,omitempty"`
	Error            string `json:"error,omitempty"`
}

// Entry is one directory entry of a ReadResult.
type Entry struct {
	Name  string `json:"name"`
	Dir   bool   `json:"dir"`
	Size  int64  `json:"size"`
	Mode  string `json:"mode"`  // permission bits in octal, e.g. "0644"
	MTime string `json:"mtime"` // RFC 3339 UTC
}

// MarshalJSON writes the fields of the result's form only.
func (r ReadResult) MarshalJSON() ([]byte, error) {
	switch {
	case r.Error != "":
		return json.Marshal(struct {
			Path  string `json:"path"`
			Error string `json:"error"`
		}{r.Path, r.Error})
	case r.Dir:
		e := r.Entries
		if e == nil {
			e = []Entry{}
		}
		return json.Marshal(struct {
			Path      string  `json:"path"`
			Dir       bool    `json:"dir"`
			Entries   []Entry `json:"entries"`
			Truncated bool    `json:"entries_truncated,omitempty"`
		}{r.Path, true, e, r.EntriesTruncated})
	default:
		return json.Marshal(struct {
			Path     string `json:"path"`
			Size     int64  `json:"size"`
			Offset   int64  `json:"offset"`
			Encoding string `json:"encoding"`
			Content  string `json:"content"`
			EOF      bool   `json:"eof"`
		}{r.Path, r.Size, r.Offset, r.Encoding, r.Content, r.EOF})
	}
}

// WriteRequest is the data of an fs:write request.
type WriteRequest struct {
	Path     string `json:"path"`
	Content  string `json:"content"`
	Encoding string `json:"encoding,omitempty"` // "utf-8" (default) or "base64"
	Append   bool   `json:"append,omitempty"`
	Mkdir    bool   `json:"mkdir,omitempty"`
}

// WriteResult is the data of an fs:write result.
type WriteResult struct {
	Path    string `json:"path"`
	Written int64  `json:"written"`
	Error   string `json:"error,omitempty"`
}

// Result is what Handle returns: the result part (Mime, Data) and files to
// send as blob parts in the same message.
type Result struct {
	Mime        string
	Data        json.RawMessage
	Attachments []Attachment
}

// Attachment is a file to send as a blob part. Path is a temporary file
// holding the full bytes; the caller owns it and removes it.
type Attachment struct {
	Name   string // blob part name: "stdout", "stderr", or the file's base name
	Mime   string
	Path   string
	Size   int64
	Sha256 string // lowercase hex
}

// Remove deletes the temporary files of every attachment in r, for callers
// that drop a result.
func (r Result) Remove() {
	for _, a := range r.Attachments {
		_ = removeFile(a.Path)
	}
}
