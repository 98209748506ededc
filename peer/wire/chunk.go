package wire

import (
	"bytes"
	"encoding/base64"
	"errors"
	"slices"
	"strconv"
	"unicode/utf8"
)

// MaxChunkData is the most decoded data one chunk carries (docs/protocol/blobs.md).
const MaxChunkData = 512 << 10

// Chunk carries bytes of a blob (docs/protocol/blobs.md). Data is standard base64 on the
// wire.
type Chunk struct {
	Head
	Ref  string `json:"ref"`
	Off  int64  `json:"off"`
	Data []byte `json:"data"`
	End  bool   `json:"end"`
}

func (c *Chunk) validate() error {
	if err := needThread(&c.Head); err != nil {
		return err
	}
	if c.Ref == "" {
		return errors.New("chunk needs ref")
	}
	if c.Off < 0 {
		return errors.New("chunk off must not be negative")
	}
	return nil
}

// NewChunk builds a chunk line.
func NewChunk(id, ts, th, ref string, off int64, data []byte, end bool) *Chunk {
	c := &Chunk{Ref: ref, Off: off, Data: data, End: end}
	c.T, c.ID, c.TS, c.Th = TypeChunk, id, ts, th
	return c
}

// appendJSON writes the chunk without encoding/json (whose base64 is slow),
// in the field order the fast decoder expects.
func (c *Chunk) appendJSON(b []byte) []byte {
	return AppendChunk(b, c.ID, c.TS, c.Th, c.Ref, c.Off, c.Data, c.End)
}

// AppendChunk appends the line Encode(NewChunk(id, ts, th, ref, off, data,
// end)) makes to b (no newline), so a sender can reuse one buffer for many
// chunk lines.
func AppendChunk(b []byte, id, ts, th, ref string, off int64, data []byte, end bool) []byte {
	n := base64.StdEncoding.EncodedLen(len(data))
	b = slices.Grow(b, n+len(id)+len(ts)+len(th)+len(ref)+96)
	b = append(b, `{"t":"chunk","id":`...)
	b = appendCanonString(b, id)
	b = append(b, `,"ts":`...)
	b = appendCanonString(b, ts)
	b = append(b, `,"th":`...)
	b = appendCanonString(b, th)
	b = append(b, `,"ref":`...)
	b = appendCanonString(b, ref)
	b = append(b, `,"off":`...)
	b = strconv.AppendInt(b, off, 10)
	b = append(b, `,"data":"`...)
	start := len(b)
	b = slices.Grow(b, n)[:start+n] // every byte is written by Encode
	encodeBase64(b[start:], data)
	b = append(b, `","end":`...)
	b = strconv.AppendBool(b, end)
	return append(b, '}')
}

var chunkPrefix = []byte(`{"t":"chunk",`)

// decodeChunkFast decodes a chunk line of the simple shape this package
// writes (flat, no escapes, known keys) without encoding/json, so blob data
// moves at memory speed. Anything else returns ok == false and takes the
// general path, which gives the same result for valid input.
func decodeChunkFast(raw []byte) (*Chunk, bool) {
	c, ok := decodeChunkInto(raw, nil)
	if ok {
		c.SetRaw(raw)
	}
	return c, ok
}

// decodeChunkInto is decodeChunkFast without keeping raw (Raw stays nil):
// the data is decoded into buf when it has the room, else into a new slice.
// One function on purpose: it is the scanner of every chunk line received
// (BenchmarkDecodeChunk512K), one loop over the members in which each case
// moves the same cursor and sets one bit of seen; split, the cursor and
// the bits would pass through every call.
func decodeChunkInto(raw, buf []byte) (*Chunk, bool) {
	if !bytes.HasPrefix(raw, chunkPrefix) {
		return nil, false
	}
	c := &Chunk{}
	c.T = TypeChunk
	i := len(chunkPrefix)
	var seen uint8
	for {
		k, j, ok := fastString(raw, i)
		if !ok || j >= len(raw) || raw[j] != ':' {
			return nil, false
		}
		i = j + 1
		var bit uint8
		switch k {
		case "id", "ts", "th", "ref":
			v, j, ok := fastString(raw, i)
			if !ok {
				return nil, false
			}
			i = j
			switch k {
			case "id":
				c.ID, bit = v, 1
			case "ts":
				c.TS, bit = v, 2
			case "th":
				c.Th, bit = v, 4
			case "ref":
				c.Ref, bit = v, 8
			}
		case "off":
			j := i
			for j < len(raw) && raw[j] >= '0' && raw[j] <= '9' {
				j++
			}
			if j == i || (raw[i] == '0' && j-i > 1) {
				return nil, false
			}
			n, err := strconv.ParseInt(string(raw[i:j]), 10, 64)
			if err != nil {
				return nil, false
			}
			c.Off, bit, i = n, 16, j
		case "data":
			if i >= len(raw) || raw[i] != '"' {
				return nil, false
			}
			// decodeBase64 refuses the CR and LF encoding/base64 would skip
			// (raw in a JSON string they make the line invalid), a
			// backslash (an escape, legal JSON: the general path decodes
			// it) and a quote. So when the line ends as Encode ends it (the
			// "end" member right after the data), the string's end is taken
			// from there without a scan for it: decoding what lies before
			// that tail succeeds only if it holds no quote, and then the
			// tail's quote is the first one.
			end := dataTail(raw, i+1)
			d, ok := decodeData(raw, i+1, end, buf)
			if !ok {
				end = bytes.IndexByte(raw[i+1:], '"')
				if d, ok = decodeData(raw, i+1, end, buf); !ok {
					return nil, false
				}
			}
			c.Data, bit, i = d, 32, i+1+end+1
		case "end":
			switch {
			case bytes.HasPrefix(raw[i:], []byte("true")):
				c.End, i = true, i+4
			case bytes.HasPrefix(raw[i:], []byte("false")):
				c.End, i = false, i+5
			default:
				return nil, false
			}
			bit = 64
		default:
			return nil, false
		}
		if seen&bit != 0 {
			return nil, false
		}
		seen |= bit
		if i >= len(raw) {
			return nil, false
		}
		if raw[i] == ',' {
			i++
			continue
		}
		if raw[i] != '}' {
			return nil, false
		}
		for _, b := range raw[i+1:] {
			if b != ' ' && b != '\t' && b != '\r' {
				return nil, false
			}
		}
		break
	}
	if seen&(1|2|4|8|16|32) != (1 | 2 | 4 | 8 | 16 | 32) {
		return nil, false
	}
	if c.validate() != nil {
		return nil, false
	}
	return c, true
}

// Encode's line tails after the data string.
var (
	tailEndTrue  = []byte(`","end":true}`)
	tailEndFalse = []byte(`","end":false}`)
)

// dataTail returns the length of the data string that starts at raw[from]
// if the line ends as Encode ends it (trailing white space aside), else -1.
func dataTail(raw []byte, from int) int {
	t := bytes.TrimRight(raw, " \t\r")
	for _, tail := range [][]byte{tailEndTrue, tailEndFalse} {
		if bytes.HasSuffix(t, tail) && len(t)-len(tail) >= from {
			return len(t) - len(tail) - from
		}
	}
	return -1
}

// decodeData decodes the n base64 characters at raw[from:] into buf when
// it has the room (else a new slice); ok is false when they are not valid
// base64 (or n is negative).
func decodeData(raw []byte, from, n int, buf []byte) ([]byte, bool) {
	if n < 0 {
		return nil, false
	}
	enc := raw[from : from+n]
	dl := base64.StdEncoding.DecodedLen(len(enc))
	d := buf[:0]
	if cap(d) < dl {
		d = make([]byte, dl)
	}
	m, err := decodeBase64(d[:dl], enc)
	if err != nil {
		return nil, false
	}
	return d[:m], true
}

// fastString reads a JSON string at raw[i] with no escapes and no control
// characters; it returns the string and the index after its closing quote.
func fastString(raw []byte, i int) (string, int, bool) {
	if i >= len(raw) || raw[i] != '"' {
		return "", i, false
	}
	j := i + 1
	for j < len(raw) {
		c := raw[j]
		if c == '"' {
			s := raw[i+1 : j]
			if !utf8.Valid(s) {
				return "", i, false
			}
			return string(s), j + 1, true
		}
		if c == '\\' || c < 0x20 {
			return "", i, false
		}
		j++
	}
	return "", i, false
}
