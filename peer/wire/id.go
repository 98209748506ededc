package wire

import (
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"strings"
	"sync"
	"time"
)

const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// IDGen makes ULIDs that increase strictly in the order they are made, even
// within one millisecond or when the clock steps back, by random steps: an
// id seen does not tell the next. The zero value is ready; Now may be set
// for tests.
type IDGen struct {
	Now func() time.Time

	mu   sync.Mutex // guards last
	last [16]byte
}

// New returns the next id.
func (g *IDGen) New() string {
	now := time.Now
	if g.Now != nil {
		now = g.Now
	}
	ms := uint64(now().UnixMilli())
	g.mu.Lock()
	defer g.mu.Unlock()
	lastMS := binary.BigEndian.Uint64(append([]byte{0, 0}, g.last[:6]...))
	var u [16]byte
	if ms > lastMS {
		binary.BigEndian.PutUint16(u[0:2], uint16(ms>>32))
		binary.BigEndian.PutUint32(u[2:6], uint32(ms))
		if _, err := rand.Read(u[6:]); err != nil {
			panic(err) // crypto/rand never fails on Linux
		}
		u[6] &= 0x7f // leave room to increment within this millisecond
	} else {
		u = g.last
		// Add a random step of 1 to 2^32 to the 80-bit random part (not
		// 1: the next id must not be guessable from one seen, nor a
		// line's id from the gap it leaves between two others); on
		// overflow (only reachable after Observe of an id near the top)
		// carry into the timestamp rather than wrap to a smaller id.
		var r [4]byte
		if _, err := rand.Read(r[:]); err != nil {
			panic(err)
		}
		step := uint64(binary.BigEndian.Uint32(r[:])) + 1
		lo := binary.BigEndian.Uint64(u[8:16])
		sum := lo + step
		binary.BigEndian.PutUint64(u[8:16], sum)
		if sum < lo {
			for i := 7; i >= 0; i-- {
				u[i]++
				if u[i] != 0 {
					break
				}
			}
		}
	}
	g.last = u
	return encodeULID(u)
}

// Observe makes later ids greater than id (used at start with the newest id
// in the store, so ids keep increasing across restarts).
func (g *IDGen) Observe(id string) {
	u, ok := decodeULID(id)
	if !ok {
		return
	}
	g.mu.Lock()
	if string(u[:]) > string(g.last[:]) {
		g.last = u
	}
	g.mu.Unlock()
}

func encodeULID(u [16]byte) string {
	var out [26]byte
	// 128 bits → 26 base32 digits (the first carries 3 bits).
	hi := binary.BigEndian.Uint64(u[0:8])
	lo := binary.BigEndian.Uint64(u[8:16])
	for i := 25; i >= 0; i-- {
		out[i] = crockford[lo&31]
		lo = lo>>5 | hi<<59
		hi >>= 5
	}
	return string(out[:])
}

func decodeULID(s string) ([16]byte, bool) {
	var u [16]byte
	if !ValidID(s) {
		return u, false
	}
	var hi, lo uint64
	for i := 0; i < 26; i++ {
		v := uint64(strings.IndexByte(crockford, upper(s[i])))
		hi = hi<<5 | lo>>59
		lo = lo<<5 | v
	}
	binary.BigEndian.PutUint64(u[0:8], hi)
	binary.BigEndian.PutUint64(u[8:16], lo)
	return u, true
}

func upper(c byte) byte {
	if c >= 'a' && c <= 'z' {
		return c - 32
	}
	return c
}

// ValidID reports whether s is a ULID: 26 Crockford base32 characters whose
// first is at most '7'. Lowercase is accepted (Crockford is case-insensitive).
func ValidID(s string) bool {
	if len(s) != 26 || s[0] > '7' {
		return false
	}
	for i := 0; i < 26; i++ {
		if strings.IndexByte(crockford, upper(s[i])) < 0 {
			return false
		}
	}
	return true
}

// ValidThread reports whether s is "thr_" and 1 to 32 of [0-9a-z].
func ValidThread(s string) bool {
	if !strings.HasPrefix(s, "thr_") || len(s) < 5 || len(s) > 36 {
		return false
	}
	for _, c := range s[4:] {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z') {
			return false
		}
	}
	return true
}

// NewThread returns a fresh thread id with 16 random characters.
func NewThread() string {
	const alpha = "0123456789abcdefghijklmnopqrstuvwxyz"
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err)
	}
	out := make([]byte, 16)
	for i, c := range b {
		out[i] = alpha[int(c)%len(alpha)]
	}
	return "thr_" + string(out)
}

// NewNonce returns n random bytes in unpadded base64url.
func NewNonce(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return b64url.EncodeToString(b)
}

// TimeFormat is how this peer writes times: RFC 3339 UTC with milliseconds.
const TimeFormat = "2006-01-02T15:04:05.000Z"

// FormatTime writes t in UTC as RFC 3339 with a Z.
func FormatTime(t time.Time) string { return t.UTC().Format(TimeFormat) }

// ParseTime reads an RFC 3339 UTC time ending in Z.
func ParseTime(s string) (time.Time, error) {
	if !strings.HasSuffix(s, "Z") {
		return time.Time{}, fmt.Errorf("wire: time %q: not UTC with Z", clip(s))
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("wire: time %q: %w", clip(s), err)
	}
	return t, nil
}
