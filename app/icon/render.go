package icon

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math"
	"strconv"
)

// DefaultSize is the edge, in pixels, of the tray icon Cache renders.
// Tray hosts scale it down; 64 keeps the badge digits legible on HiDPI.
const DefaultSize = 64

// State is what the tray icon reflects.
type State struct {
	PeersUp   int // peers with a session up
	Unread    int // unread lines over all threads
	Approvals int // requests waiting for a decision
}

// Look is the part of a State the icon shows: two States with the same Look
// are drawn with the same pixels, so the tray is updated only when it
// changes.
type Look struct {
	Online   bool   // at least one peer is up
	Approval bool   // at least one request waits
	Badge    string // unread count as drawn, "" for none
}

// Look returns the look of s.
func (s State) Look() Look {
	return Look{Online: s.PeersUp > 0, Approval: s.Approvals > 0, Badge: BadgeText(s.Unread)}
}

// BadgeText is the unread count as the badge shows it: "" for none, the
// number up to 99, and "99+" above.
func BadgeText(unread int) string {
	switch {
	case unread <= 0:
		return ""
	case unread > 99:
		return "99+"
	}
	return strconv.Itoa(unread)
}

// The colors of the icon. Tests check pixels against them.
var (
	ColorOnline   = color.RGBA{0x17, 0x94, 0x86, 0xff} // teal disc: connected
	ColorOffline  = color.RGBA{0x86, 0x8c, 0x96, 0xff} // grey disc: no peer up
	ColorApproval = color.RGBA{0xf0, 0x9a, 0x16, 0xff} // amber disc: a decision waits
	ColorBadge    = color.RGBA{0xd9, 0x2d, 0x2a, 0xff} // red unread badge
	ColorGlyph    = color.RGBA{0xff, 0xff, 0xff, 0xff} // glyphs and digits
)

// Geometry, as fractions of the icon's edge.
const (
	discR     = 0.46 // base disc radius (center 0.5, 0.5)
	nodeR     = 0.10 // wire end nodes
	nodeLeft  = 0.27
	nodeRight = 0.73
	wireR     = 0.04  // half the wire's thickness
	wireGap   = 0.08  // half the cut in the wire when offline
	badgeH    = 0.48  // badge height
	badgeGap  = 0.045 // transparent ring around the badge
)

// Render draws s into a size×size image. The result depends only on
// s.Look() and size.
func Render(s State, size int) *image.RGBA {
	return RenderLook(s.Look(), size)
}

// RenderLook draws a Look into a size×size image.
func RenderLook(l Look, size int) *image.RGBA {
	if size < 16 {
		size = 16
	}
	c := &canvas{img: image.NewRGBA(image.Rect(0, 0, size, size)), s: float64(size)}

	base := ColorOffline
	switch {
	case l.Approval:
		base = ColorApproval
	case l.Online:
		base = ColorOnline
	}
	c.capsule(0.5, 0.5, 0.5, 0.5, discR, base)

	switch {
	case l.Approval:
		// Exclamation mark: a bar and a dot.
		c.capsule(0.5, 0.25, 0.5, 0.56, 0.065, ColorGlyph)
		c.capsule(0.5, 0.75, 0.5, 0.75, 0.075, ColorGlyph)
	case l.Online:
		c.capsule(nodeLeft, 0.5, nodeRight, 0.5, wireR, ColorGlyph)
		c.capsule(nodeLeft, 0.5, nodeLeft, 0.5, nodeR, ColorGlyph)
		c.capsule(nodeRight, 0.5, nodeRight, 0.5, nodeR, ColorGlyph)
	default:
		c.capsule(nodeLeft, 0.5, 0.5-wireGap, 0.5, wireR, ColorGlyph)
		c.capsule(0.5+wireGap, 0.5, nodeRight, 0.5, wireR, ColorGlyph)
		c.capsule(nodeLeft, 0.5, nodeLeft, 0.5, nodeR, ColorGlyph)
		c.capsule(nodeRight, 0.5, nodeRight, 0.5, nodeR, ColorGlyph)
	}

	if l.Badge != "" {
		c.badge(l.Badge)
	}
	return c.img
}

// PNG encodes Render(s, size) as PNG.
func PNG(s State, size int) []byte {
	return encode(Render(s, size))
}

func encode(img image.Image) []byte {
	var b bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestCompression}
	if err := enc.Encode(&b, img); err != nil {
		// Encoding an in-memory RGBA image into a bytes.Buffer cannot fail.
		panic("icon: png encode: " + err.Error())
	}
	return b.Bytes()
}

// BadgeRect is where the badge of text is drawn in an icon of the given
// size: the capsule's bounding box.
func BadgeRect(text string, size int) image.Rectangle {
	x0, x1, cy, r, _ := badgeGeometry(text, float64(size))
	return image.Rect(int(math.Floor(x0-r)), int(math.Floor(cy-r)), int(math.Ceil(x1+r)), int(math.Ceil(cy+r)))
}

// badgeGeometry returns the badge capsule (x0..x1 at height cy, radius r,
// all in pixels) and the font scale k for text in an icon of edge s.
func badgeGeometry(text string, s float64) (x0, x1, cy, r float64, k int) {
	h := badgeH * s
	r = h / 2
	k = int(h * 0.62 / glyphH)
	if k < 1 {
		k = 1
	}
	inner := float64(textWidth(text)*k + 2*k) // text plus a font pixel of padding each side
	x1 = s - r
	x0 = x1
	if inner > 2*r*0.9 {
		x0 = x1 - (inner - 2*r*0.9)
	}
	return x0, x1, r, r, k
}

// badge knocks a transparent ring out of the disc, draws the red capsule
// and writes text in it.
func (c *canvas) badge(text string) {
	x0, x1, cy, r, k := badgeGeometry(text, c.s)
	c.erase(x0, cy, x1, cy, r+badgeGap*c.s)
	c.capsulePx(x0, cy, x1, cy, r, ColorBadge)

	x, top := textOrigin(text, c.s)
	for _, ch := range text {
		for gy := 0; gy < glyphH; gy++ {
			for gx := 0; gx < glyphW; gx++ {
				if lit(ch, gx, gy) {
					c.fill(x+gx*k, top+gy*k, k, k, ColorGlyph)
				}
			}
		}
		x += (glyphW + 1) * k
	}
}

// textOrigin is the top-left pixel of the badge text for an icon of edge s.
func textOrigin(text string, s float64) (left, top int) {
	x0, x1, cy, _, k := badgeGeometry(text, s)
	tw, th := textWidth(text)*k, glyphH*k
	return int(math.Round((x0+x1)/2 - float64(tw)/2)), int(math.Round(cy - float64(th)/2))
}

// canvas draws anti-aliased capsules by 4×4 supersampling, with integer
// compositing so results are exact and repeatable.
type canvas struct {
	img *image.RGBA
	s   float64 // edge in pixels
}

const sub = 4 // supersampling per axis

// capsule draws the set of points within r of segment a–b, in fractions of
// the edge.
func (c *canvas) capsule(ax, ay, bx, by, r float64, col color.RGBA) {
	c.capsulePx(ax*c.s, ay*c.s, bx*c.s, by*c.s, r*c.s, col)
}

// capsulePx is capsule in pixels.
func (c *canvas) capsulePx(ax, ay, bx, by, r float64, col color.RGBA) {
	c.cover(ax, ay, bx, by, r, func(p []uint8, n int) {
		for i, v := range [4]uint8{col.R, col.G, col.B, col.A} {
			p[i] = uint8((int(v)*n + int(p[i])*(sub*sub-n) + sub*sub/2) / (sub * sub))
		}
	})
}

// erase clears (toward transparent) the capsule a–b of radius r, in pixels.
func (c *canvas) erase(ax, ay, bx, by, r float64) {
	c.cover(ax, ay, bx, by, r, func(p []uint8, n int) {
		for i := range 4 {
			p[i] = uint8((int(p[i])*(sub*sub-n) + sub*sub/2) / (sub * sub))
		}
	})
}

// cover calls blend for every pixel the capsule touches, with the number
// of covered subsamples (1..sub²).
func (c *canvas) cover(ax, ay, bx, by, r float64, blend func(p []uint8, n int)) {
	b := c.img.Bounds()
	minX := max(b.Min.X, int(math.Floor(math.Min(ax, bx)-r)))
	maxX := min(b.Max.X-1, int(math.Ceil(math.Max(ax, bx)+r)))
	minY := max(b.Min.Y, int(math.Floor(math.Min(ay, by)-r)))
	maxY := min(b.Max.Y-1, int(math.Ceil(math.Max(ay, by)+r)))
	r2 := r * r
	for y := minY; y <= maxY; y++ {
		for x := minX; x <= maxX; x++ {
			n := 0
			for sy := range sub {
				for sx := range sub {
					px := float64(x) + (float64(sx)+0.5)/sub
					py := float64(y) + (float64(sy)+0.5)/sub
					if dist2(px, py, ax, ay, bx, by) <= r2 {
						n++
					}
				}
			}
			if n > 0 {
				i := c.img.PixOffset(x, y)
				blend(c.img.Pix[i:i+4], n)
			}
		}
	}
}

// fill paints an opaque w×h block at (x, y), clipped.
func (c *canvas) fill(x, y, w, h int, col color.RGBA) {
	r := image.Rect(x, y, x+w, y+h).Intersect(c.img.Bounds())
	for yy := r.Min.Y; yy < r.Max.Y; yy++ {
		for xx := r.Min.X; xx < r.Max.X; xx++ {
			c.img.SetRGBA(xx, yy, col)
		}
	}
}

// dist2 is the squared distance from p to segment a–b.
func dist2(px, py, ax, ay, bx, by float64) float64 {
	dx, dy := bx-ax, by-ay
	t := 0.0
	if l := dx*dx + dy*dy; l > 0 {
		t = ((px-ax)*dx + (py-ay)*dy) / l
		t = math.Max(0, math.Min(1, t))
	}
	qx, qy := ax+t*dx-px, ay+t*dy-py
	return qx*qx + qy*qy
}
