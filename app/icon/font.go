package icon

// A font is a bitmap font for the badge: digits and '+'. Each row is w
// bits, the most significant bit leftmost.
type font struct {
	w, h   int
	glyphs map[rune][]uint8
}

// font3x5 is for the smallest badges (16 px icons, 32 px at twice the
// scale): the least a digit needs to be told from the others.
var font3x5 = &font{w: 3, h: 5, glyphs: map[rune][]uint8{
	'0': {0b111, 0b101, 0b101, 0b101, 0b111},
	'1': {0b010, 0b110, 0b010, 0b010, 0b111},
	'2': {0b111, 0b001, 0b111, 0b100, 0b111},
	'3': {0b111, 0b001, 0b111, 0b001, 0b111},
	'4': {0b101, 0b101, 0b111, 0b001, 0b001},
	'5': {0b111, 0b100, 0b111, 0b001, 0b111},
	'6': {0b111, 0b100, 0b111, 0b101, 0b111},
	'7': {0b111, 0b001, 0b010, 0b010, 0b010},
	'8': {0b111, 0b101, 0b111, 0b101, 0b111},
	'9': {0b111, 0b101, 0b111, 0b001, 0b111},
	'+': {0b000, 0b010, 0b111, 0b010, 0b000},
}}

// font5x7 is for 22 and 24 px icons and the larger ones: rounder digits
// that read like type.
var font5x7 = &font{w: 5, h: 7, glyphs: map[rune][]uint8{
	'0': {0b01110, 0b10001, 0b10011, 0b10101, 0b11001, 0b10001, 0b01110},
	'1': {0b00100, 0b01100, 0b00100, 0b00100, 0b00100, 0b00100, 0b01110},
	'2': {0b01110, 0b10001, 0b00001, 0b00110, 0b01000, 0b10000, 0b11111},
	'3': {0b11110, 0b00001, 0b00001, 0b01110, 0b00001, 0b00001, 0b11110},
	'4': {0b00010, 0b00110, 0b01010, 0b10010, 0b11111, 0b00010, 0b00010},
	'5': {0b11111, 0b10000, 0b11110, 0b00001, 0b00001, 0b10001, 0b01110},
	'6': {0b00110, 0b01000, 0b10000, 0b11110, 0b10001, 0b10001, 0b01110},
	'7': {0b11111, 0b00001, 0b00010, 0b00100, 0b01000, 0b01000, 0b01000},
	'8': {0b01110, 0b10001, 0b10001, 0b01110, 0b10001, 0b10001, 0b01110},
	'9': {0b01110, 0b10001, 0b10001, 0b01111, 0b00001, 0b00010, 0b01100},
	'+': {0b00000, 0b00100, 0b00100, 0b11111, 0b00100, 0b00100, 0b00000},
}}

// width is the width of s in font pixels: glyphs one pixel apart.
func (f *font) width(s string) int {
	n := len([]rune(s))
	if n == 0 {
		return 0
	}
	return n*f.w + (n - 1)
}

// lit reports whether font pixel (x, y) of glyph r is set; unknown runes
// are blank.
func (f *font) lit(r rune, x, y int) bool {
	g, ok := f.glyphs[r]
	if !ok || x < 0 || x >= f.w || y < 0 || y >= f.h {
		return false
	}
	return g[y]&(1<<(f.w-1-x)) != 0
}

// litCount is the number of set font pixels of s.
func (f *font) litCount(s string) int {
	n := 0
	for _, r := range s {
		for y := range f.h {
			for x := range f.w {
				if f.lit(r, x, y) {
					n++
				}
			}
		}
	}
	return n
}
