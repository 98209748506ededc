package icon

// glyphW and glyphH are the size of a font glyph in font pixels.
const (
	glyphW = 3
	glyphH = 5
)

// font is a 3×5 bitmap font for the badge: digits and '+'. Each row is
// three bits, the most significant bit leftmost.
var font = map[rune][glyphH]uint8{
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
}

// textWidth is the width of s in font pixels: glyphs one pixel apart.
func textWidth(s string) int {
	n := len([]rune(s))
	if n == 0 {
		return 0
	}
	return n*glyphW + (n - 1)
}

// lit reports whether font pixel (x, y) of glyph r is set; unknown runes
// are blank.
func lit(r rune, x, y int) bool {
	g, ok := font[r]
	if !ok || x < 0 || x >= glyphW || y < 0 || y >= glyphH {
		return false
	}
	return g[y]&(1<<(glyphW-1-x)) != 0
}
