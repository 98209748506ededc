package profile

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/awp-tray/awp-tray/peer/key"
)

// Limits and defaults (docs/protocol/profile.md, and docs/profile.md where it is silent).
const (
	InlineMax         = 65536             // bytes of inline output or file content
	DefaultTimeout    = 600 * time.Second // exec timeout when the request gives none
	MaxTimeoutSeconds = 86400             // larger timeouts are a bad request
	MaxEntries        = 4096              // directory entries returned by fs:read
	DefaultMaxPerPeer = 4
	DefaultMaxTotal   = 16

	// maxWalkUp bounds the directories walked up from an opened one to
	// the workspace root when checking it against the hidden directories:
	// deeper than any path PATH_MAX (4,096 bytes) allows, so only a
	// directory moved under the walk reaches it (then: refused).
	maxWalkUp = 4096
	// maxHiddenFiles bounds the entries of a hidden directory whose files
	// are recognized through a hard link elsewhere (identity.key, awp.db
	// and the rest of the data directory's top level: a few dozen).
	maxHiddenFiles = 1024
)

// Runner runs profile requests in the workspace Root. Set its fields, then
// call Handle from any number of goroutines; the fields must not change
// afterwards. The zero value is unusable only for lack of Root.
type Runner struct {
	Root string // workspace root directory (required)
	// Hidden are directories no request may reach even when Root
	// contains them: the node's data directory (identity.key, awp.db,
	// blobs, awp.sock). A path into one fails with ErrOutside, by any
	// spelling; a listing leaves it out; exec cannot start in it, and
	// under the sandbox cannot see it.
	Hidden     []string
	MaxPerPeer int          // concurrent requests per peer; 0 means DefaultMaxPerPeer
	MaxTotal   int          // concurrent requests in all; 0 means DefaultMaxTotal
	BaseEnv    []string     // exec base environment ("K=V"); nil means os.Environ()
	TempDir    string       // where output and attachment files go; "" means os.TempDir()
	Logger     *slog.Logger // nil: silent

	// Sandbox is how exec runs: SandboxAuto ("" too), SandboxBwrap or
	// SandboxNone (docs/profile.md "Exec sandbox"); SetSandbox changes it
	// later.
	Sandbox string
	// NoNetwork runs sandboxed exec without network (only its own
	// loopback). A request's "network": false asks the same of one exec.
	NoNetwork bool
	// Bwrap is the bubblewrap program; "" means "bwrap" in PATH.
	Bwrap string
	// HomeDir is hidden from sandboxed exec (except what of it is the
	// workspace); "" means os.UserHomeDir().
	HomeDir string

	beforeStart func() // test hook: runs after the cwd check, before the child starts

	mode atomic.Pointer[string] // set by SetSandbox

	mu      sync.Mutex // mu guards: running, total
	running map[key.PublicKey]int
	total   int
}

// Handle runs one request from peer from: mime names it (MimeExec, MimeRead,
// MimeWrite) and data is the part's data. wantBlobs says whether the
// requester lists "blob" in its caps: only then are full outputs and large
// files returned as Attachments. The caller has already checked grants.
//
// Handle returns ErrUnknownMime, ErrBadRequest (malformed data), ErrBusy
// (over MaxPerPeer or MaxTotal) or ErrNoRoot; otherwise a Result, whose data
// carries "error" when the request ran and failed.
func (r *Runner) Handle(ctx context.Context, from key.PublicKey, mime string, data json.RawMessage, wantBlobs bool) (Result, error) {
	var (
		run func(w *workspace) (any, []Attachment)
	)
	switch mime {
	case MimeExec:
		req, argv, err := decodeExec(data)
		if err != nil {
			return Result{}, err
		}
		run = func(w *workspace) (any, []Attachment) { return r.exec(ctx, w, from, req, argv, wantBlobs) }
	case MimeRead:
		req, err := decodeRead(data)
		if err != nil {
			return Result{}, err
		}
		run = func(w *workspace) (any, []Attachment) { return r.read(w, from, req, wantBlobs) }
	case MimeWrite:
		req, content, err := decodeWrite(data)
		if err != nil {
			return Result{}, err
		}
		run = func(w *workspace) (any, []Attachment) { return r.write(w, from, req, content) }
	default:
		return Result{}, fmt.Errorf("%w: %q", ErrUnknownMime, truncate(mime, 80))
	}
	if !r.acquire(from) {
		return Result{}, fmt.Errorf("%w: %s has too many requests running", ErrBusy, from.Short())
	}
	defer r.release(from)
	w, err := openWorkspace(r.Root, r.Hidden)
	if err != nil {
		return Result{}, err
	}
	defer w.close()
	out, atts := run(w)
	b, err := marshal(out)
	if err != nil {
		Result{Attachments: atts}.Remove()
		return Result{}, fmt.Errorf("profile: encode result: %w", err)
	}
	return Result{Mime: ResultMime(mime), Data: b, Attachments: atts}, nil
}

func (r *Runner) acquire(from key.PublicKey) bool {
	per, total := r.MaxPerPeer, r.MaxTotal
	if per <= 0 {
		per = DefaultMaxPerPeer
	}
	if total <= 0 {
		total = DefaultMaxTotal
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.running[from] >= per || r.total >= total {
		return false
	}
	if r.running == nil {
		r.running = map[key.PublicKey]int{}
	}
	r.running[from]++
	r.total++
	return true
}

func (r *Runner) release(from key.PublicKey) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.running[from]--; r.running[from] <= 0 {
		delete(r.running, from)
	}
	r.total--
}

func (r *Runner) log() *slog.Logger {
	if r.Logger != nil {
		return r.Logger
	}
	return slog.New(slog.DiscardHandler)
}

func (r *Runner) tempDir() string {
	if r.TempDir != "" {
		return r.TempDir
	}
	return os.TempDir()
}

// marshal encodes v without HTML escaping and without the trailing newline.
func marshal(v any) (json.RawMessage, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

func hasNUL(s string) bool { return strings.IndexByte(s, 0) >= 0 }

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

func removeFile(p string) error {
	if p == "" {
		return nil
	}
	return os.Remove(p)
}
