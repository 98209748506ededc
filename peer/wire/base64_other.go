//go:build !amd64

package wire

var b64SIMD = false

func encodeSIMD(dst, src []byte) (si, di int) { return 0, 0 }

func decodeSIMD(dst, src []byte) (si, di int) { return 0, 0 }
