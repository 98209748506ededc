#include "textflag.h"

// Offsets of the tables in b64Tables.
#define ENC_SHUFFLE 0
#define ENC_SHIFTS 64
#define ENC_ALPHA 128
#define DEC_LO 192
#define DEC_HI 256
#define DEC_MADD1 320
#define DEC_MADD2 384
#define DEC_PACK 448

// func encodeBlocksAVX512(dst, src *byte, n int, t *b64Tables)
TEXT ·encodeBlocksAVX512(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ t+24(FP), AX
	VMOVDQU64 ENC_SHUFFLE(AX), Z1
	VMOVDQU64 ENC_SHIFTS(AX), Z2
	VMOVDQU64 ENC_ALPHA(AX), Z3

encloop:
	VMOVDQU64 (SI), Z0
	VPERMB Z0, Z1, Z0            // bytes 3i+1, 3i, 3i+2, 3i+1 in lane i
	VPMULTISHIFTQB Z0, Z2, Z0    // the four 6-bit fields of each lane, one per byte
	VPERMB Z3, Z0, Z0            // low 6 bits of each byte → its character
	VMOVDQU64 Z0, (DI)
	ADDQ $48, SI
	ADDQ $64, DI
	DECQ CX
	JNZ encloop
	VZEROUPPER
	RET

// func decodeBlocksAVX512(dst, src *byte, n int, t *b64Tables) int
TEXT ·decodeBlocksAVX512(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ t+24(FP), AX
	XORQ BX, BX
	VMOVDQU64 DEC_LO(AX), Z1
	VMOVDQU64 DEC_HI(AX), Z2
	VMOVDQU64 DEC_MADD1(AX), Z3
	VMOVDQU64 DEC_MADD2(AX), Z4
	VMOVDQU64 DEC_PACK(AX), Z5

decloop:
	VMOVDQU64 (SI), Z0
	VMOVDQA64 Z0, Z6
	VPERMI2B Z2, Z1, Z6          // Z6 = 6 bits per character by its low 7 bits, or 0x80
	VPORQ Z0, Z6, Z7             // bit 7 set: outside the alphabet (or not ASCII)
	VPMOVB2M Z7, K1
	KORTESTQ K1, K1
	JNE decdone
	VPMADDUBSW Z3, Z6, Z6        // 12 bits per 16-bit lane
	VPMADDWD Z4, Z6, Z6          // 24 bits per 32-bit lane
	VPERMB Z6, Z5, Z6            // three bytes per lane, big-endian, packed to the front
	VMOVDQU64 Z6, (DI)
	ADDQ $64, SI
	ADDQ $48, DI
	INCQ BX
	CMPQ BX, CX
	JLT decloop

decdone:
	VZEROUPPER
	MOVQ BX, ret+32(FP)
	RET
