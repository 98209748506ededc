package wire

import "golang.org/x/sys/cpu"

// On amd64 with AVX-512 VBMI, whole blocks (48 bytes / 64 characters) are
// encoded and decoded with vector byte permutes (the method of W. Muła and
// D. Lemire, "Base64 encoding and decoding at almost the speed of a memory
// copy", 2019); the table loops in base64.go do the rest.

// b64SIMD says whether the vector loops run; tests turn it off to check
// the other loops alone.
var b64SIMD = cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW && cpu.X86.HasAVX512VBMI

// b64Tables are the constants the vector loops load.
type b64Tables struct {
	encShuffle [64]byte // input bytes 3i+1, 3i, 3i+2, 3i+1 into 32-bit lane i
	encShifts  [64]byte // bit offsets of the four 6-bit fields per lane (VPMULTISHIFTQB)
	encAlpha   [64]byte // the alphabet
	decLo      [64]byte // character 0..63 → 6 bits, or 0x80 if not in the alphabet
	decHi      [64]byte // character 64..127 → the same
	decMadd1   [64]byte // 0x01400140 per lane: pairs of 6 bits into 12
	decMadd2   [64]byte // 0x00011000 per lane: pairs of 12 bits into 24
	decPack    [64]byte // the three bytes of each lane, in order, to the front
}

var b64Tab b64Tables

func init() {
	t := &b64Tab
	for i := 0; i < 16; i++ {
		copy(t.encShuffle[4*i:], []byte{byte(3*i + 1), byte(3 * i), byte(3*i + 2), byte(3*i + 1)})
		copy(t.decMadd1[4*i:], []byte{0x40, 0x01, 0x40, 0x01})
		copy(t.decMadd2[4*i:], []byte{0x00, 0x10, 0x01, 0x00})
	}
	for q := 0; q < 8; q++ {
		copy(t.encShifts[8*q:], []byte{10, 4, 22, 16, 42, 36, 54, 48})
	}
	copy(t.encAlpha[:], stdAlphabet)
	for c := 0; c < 64; c++ {
		t.decLo[c], t.decHi[c] = 0x80, 0x80
	}
	for v := 0; v < 64; v++ {
		c := stdAlphabet[v]
		if c < 64 {
			t.decLo[c] = byte(v)
		} else {
			t.decHi[c-64] = byte(v)
		}
	}
	for g := 0; g < 16; g++ {
		for k := 0; k < 3; k++ {
			t.decPack[3*g+k] = byte(4*g + 2 - k)
		}
	}
	for j := 48; j < 64; j++ {
		t.decPack[j] = 0
	}
}

// encodeBlocksAVX512 encodes n blocks of 48 bytes from src into 64
// characters each at dst. It loads 64 bytes per block: src must have 16
// readable bytes after the last block.
//
//go:noescape
func encodeBlocksAVX512(dst, src *byte, n int, t *b64Tables)

// decodeBlocksAVX512 decodes up to n blocks of 64 characters from src into
// 48 bytes each at dst, stopping before the first block with a character
// outside the alphabet; it returns the blocks done. It stores 64 bytes per
// block: dst must have room for 16 bytes after the last block.
//
//go:noescape
func decodeBlocksAVX512(dst, src *byte, n int, t *b64Tables) int

// encodeSIMD encodes what it can of src into dst in whole blocks and
// returns the bytes read and the characters written.
func encodeSIMD(dst, src []byte) (si, di int) {
	if !b64SIMD {
		return 0, 0
	}
	n := min((len(src)-16)/48, (len(dst))/64)
	if n <= 0 {
		return 0, 0
	}
	encodeBlocksAVX512(&dst[0], &src[0], n, &b64Tab)
	return 48 * n, 64 * n
}

// decodeSIMD decodes what it can of src into dst in whole blocks, leaving
// at least the last 4 characters (maybe padded) to the caller, and returns
// the characters read and the bytes written.
func decodeSIMD(dst, src []byte) (si, di int) {
	if !b64SIMD {
		return 0, 0
	}
	n := min((len(src)-4)/64, (len(dst)-16)/48)
	if n <= 0 {
		return 0, 0
	}
	n = decodeBlocksAVX512(&dst[0], &src[0], n, &b64Tab)
	return 64 * n, 48 * n
}
