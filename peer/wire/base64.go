package wire

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"errors"
)

// Chunk data is standard base64 (docs/protocol/blobs.md). encoding/base64 works one
// character at a time; these two first run vector loops where the CPU has
// them (base64_amd64.go: 48 bytes / 64 characters per step), then work on
// 12 bytes / 16 characters per step with lookup tables, about twice as
// fast as encoding/base64, and hand the last bytes (and anything unusual)
// to encoding/base64, so their results are the same.

const stdAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

// b64Pairs maps 12 bits to their two characters (the first in the low byte).
var b64Pairs [4096]uint16

// b64Dec maps a character at position i of a 4-character group to its 6
// bits shifted into place in a 24-bit group; b64Bad marks characters
// outside the alphabet (the padding '=' included).
var b64Dec [4][256]uint32

const b64Bad = 0xff000000

var strictStd = base64.StdEncoding.Strict()

func init() {
	for v := range b64Pairs {
		b64Pairs[v] = uint16(stdAlphabet[v>>6]) | uint16(stdAlphabet[v&63])<<8
	}
	for i := range b64Dec {
		for c := range b64Dec[i] {
			b64Dec[i][c] = b64Bad
		}
	}
	for v := 0; v < 64; v++ {
		c := stdAlphabet[v]
		for i := range b64Dec {
			b64Dec[i][c] = uint32(v) << (18 - 6*i)
		}
	}
}

// encodeBase64 is base64.StdEncoding.Encode.
func encodeBase64(dst, src []byte) {
	if len(dst) < base64.StdEncoding.EncodedLen(len(src)) {
		panic("wire: base64 destination too short")
	}
	si, di := encodeSIMD(dst, src)
	// Two 8-byte loads cover 12 input bytes, written as 16 characters.
	for ; len(src)-si >= 14 && len(dst)-di >= 16; si, di = si+12, di+16 {
		x := binary.BigEndian.Uint64(src[si:])
		y := binary.BigEndian.Uint64(src[si+6:])
		v := uint64(b64Pairs[x>>52]) | uint64(b64Pairs[(x>>40)&0xfff])<<16 |
			uint64(b64Pairs[(x>>28)&0xfff])<<32 | uint64(b64Pairs[(x>>16)&0xfff])<<48
		w := uint64(b64Pairs[y>>52]) | uint64(b64Pairs[(y>>40)&0xfff])<<16 |
			uint64(b64Pairs[(y>>28)&0xfff])<<32 | uint64(b64Pairs[(y>>16)&0xfff])<<48
		binary.LittleEndian.PutUint64(dst[di:], v)
		binary.LittleEndian.PutUint64(dst[di+8:], w)
	}
	base64.StdEncoding.Encode(dst[di:], src[si:])
}

var errB64Newline = errors.New("wire: newline in base64 data")

// decodeBase64 is base64.StdEncoding.Strict().Decode, except that a CR or
// LF is an error (encoding/base64 skips them; a JSON string cannot hold
// them). dst needs room for DecodedLen(len(src)) bytes.
func decodeBase64(dst, src []byte) (int, error) {
	si, di := decodeSIMD(dst, src)
	d0, d1, d2, d3 := &b64Dec[0], &b64Dec[1], &b64Dec[2], &b64Dec[3]
	// 16 characters per step, written as 12 bytes with two 8-byte stores;
	// at least 4 characters (the last group, maybe padded) are left over.
	for ; len(src)-si >= 20 && len(dst)-di >= 14; si, di = si+16, di+12 {
		s := src[si : si+16 : si+16]
		a := d0[s[0]] | d1[s[1]] | d2[s[2]] | d3[s[3]]
		b := d0[s[4]] | d1[s[5]] | d2[s[6]] | d3[s[7]]
		c := d0[s[8]] | d1[s[9]] | d2[s[10]] | d3[s[11]]
		d := d0[s[12]] | d1[s[13]] | d2[s[14]] | d3[s[15]]
		if (a|b|c|d)&b64Bad != 0 {
			break // encoding/base64 decides (and reports) the rest
		}
		o := dst[di : di+14 : di+14]
		binary.BigEndian.PutUint64(o, uint64(a)<<40|uint64(b)<<16)
		binary.BigEndian.PutUint64(o[6:], uint64(c)<<40|uint64(d)<<16)
	}
	// Whole groups of alphabet characters were decoded above, so the rest
	// decodes as it would within the whole input.
	rest := src[si:]
	if bytes.IndexByte(rest, '\r') >= 0 || bytes.IndexByte(rest, '\n') >= 0 {
		return di, errB64Newline
	}
	n, err := strictStd.Decode(dst[di:], rest)
	return di + n, err
}
