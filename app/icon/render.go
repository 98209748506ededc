package icon

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math"
	"slices"
	"strconv"
)

// DefaultSize is the edge, in pixels, of the icon Cache renders when its
// Size is 0: the size most tray hosts show (see TraySizes and docs/app.md
// "Icons").
const DefaultSize = 22

// TraySizes are the edges a tray shows its icons at: 16 (Windows at 100%,
// GNOME's AppIndicator extension), 22 and 24 (KDE Plasma, Xfce, most SNI
// hosts), 32 (16 at twice the scale). The icon is drawn for each with its
// own layout, and tests check its contrast at each.
var TraySizes = []int{16, 22, 24, 32}

// minSize is the smallest edge Render draws; smaller requests get this.
const minSize = 16

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
// digit up to 9, and "9+" above. A 16 px icon has room for two
// characters; a "42" beside a "99+" would need three, and make the badge
// cover the disc (the menu says how many, per thread).
func BadgeText(unread int) string {
	switch {
	case unread <= 0:
		return ""
	case unread > 9:
		return "9+"
	}
	return strconv.Itoa(unread)
}

// Panel is the panel (task bar, menu bar, top bar) the icon is drawn
// for: the icon has a variant for dark panels and one for light ones, so
// that it stands out from either (tailscale#18303 is what happens when
// it does not).
type Panel uint8

// The panels.
const (
	// PanelDark: bright discs with dark marks, a light red badge with dark
	// digits. The default: most panels are dark (GNOME's top bar in either
	// style, Windows' task bar by default, Xfce's and Cinnamon's).
	PanelDark Panel = iota
	// PanelLight: deep discs with white marks, a red badge with white
	// digits.
	PanelLight
)

// String returns "dark" or "light".
func (p Panel) String() string {
	if p == PanelLight {
		return "light"
	}
	return "dark"
}

// Palette is the colors of one variant. Tests check the contrast of every
// pair that meets, in pixels, against the panels each variant is for.
type Palette struct {
	Online   color.RGBA // disc: at least one peer up
	Offline  color.RGBA // disc: no peer up
	Approval color.RGBA // disc: a decision waits
	Mark     color.RGBA // the wire, its nodes and the exclamation mark
	Badge    color.RGBA // the unread badge
	Digits   color.RGBA // the count in the badge
}

// disc is the disc's color for lk: a decision waits, else a peer is up,
// else offline.
func (pal Palette) disc(lk Look) color.RGBA {
	switch {
	case lk.Approval:
		return pal.Approval
	case lk.Online:
		return pal.Online
	}
	return pal.Offline
}

// Palettes are the colors of each variant, indexed by Panel.
var Palettes = [...]Palette{
	PanelDark: {
		Online:   color.RGBA{0x2d, 0xd4, 0xbf, 0xff}, // teal
		Offline:  color.RGBA{0xaa, 0xb2, 0xbd, 0xff}, // grey
		Approval: color.RGBA{0xfb, 0xbf, 0x24, 0xff}, // amber
		Mark:     color.RGBA{0x11, 0x18, 0x27, 0xff}, // near black
		Badge:    color.RGBA{0xff, 0x6b, 0x6b, 0xff}, // light red
		Digits:   color.RGBA{0x1a, 0x05, 0x05, 0xff}, // near black
	},
	PanelLight: {
		Online:   color.RGBA{0x0f, 0x76, 0x6e, 0xff}, // deep teal
		Offline:  color.RGBA{0x5b, 0x62, 0x70, 0xff}, // slate
		Approval: color.RGBA{0xb4, 0x53, 0x09, 0xff}, // deep amber
		Mark:     color.RGBA{0xff, 0xff, 0xff, 0xff},
		Badge:    color.RGBA{0xc6, 0x28, 0x28, 0xff}, // red
		Digits:   color.RGBA{0xff, 0xff, 0xff, 0xff},
	},
}

// palette returns p's colors (PanelDark's for an unknown value).
func (p Panel) palette() Palette {
	if int(p) < len(Palettes) {
		return Palettes[p]
	}
	return Palettes[PanelDark]
}

// Render draws s for panel p into a size×size image. The result depends
// only on s.Look(), p and size.
func Render(s State, p Panel, size int) *image.RGBA {
	return RenderLook(s.Look(), p, size)
}

// RenderLook draws a Look for panel p into a size×size image (at least
// 16×16).
func RenderLook(l Look, p Panel, size int) *image.RGBA {
	return drawLook(l, p.palette(), size)
}

// PNG encodes Render(s, p, size) as PNG.
func PNG(s State, p Panel, size int) []byte {
	return encode(Render(s, p, size))
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

// layout is where everything goes in an icon of one size, in pixels. The
// marks are placed on the pixel grid (even widths on the center line of an
// even edge), so that at 16–32 px their cores are whole pixels of their
// color instead of a blur.
type layout struct {
	s      float64 // edge
	discR  float64 // disc radius (center s/2, s/2)
	wire   float64 // wire thickness
	nodeR  float64 // radius of the wire's end nodes
	nodeX  float64 // x of the left node; the right one is at s-nodeX
	cut    float64 // half the cut in the wire when offline
	bar    float64 // width of the exclamation mark
	barX   float64 // its center line when a badge is shown (else s/2)
	barTop float64 // top of its bar
	barEnd float64 // bottom of its bar
	dotY   float64 // center of its dot
	dotR   float64 // radius of its dot
	// The badge.
	font *font
	k    int // font scale: a font pixel is k×k pixels
	pad  int // badge pixels above and below the text, and beside it
	gap  int // panel pixels between the badge and the disc
	grid int // the badge text is placed on multiples of grid pixels
}

// layoutFor computes the layout of a size×size icon.
// Twice a tray size (32, 44, 48) is that size's layout doubled, so that
// halving it (as Windows does with the 32 px icon it loads for its 16 px
// tray, and as a host at scale 2 does not need to) gives back the small
// icon's whole pixels.
func layoutFor(size int) layout {
	if size%2 == 0 && slices.Contains(TraySizes, size/2) {
		return layoutFor(size / 2).doubled()
	}
	s := float64(size)
	l := layout{s: s, discR: 0.46 * s}
	l.wire = gridWidth(0.09*s, size)
	l.nodeR = math.Max(1.5, 0.10*s)
	l.nodeX = math.Round(0.27 * s)
	l.cut = math.Max(1, math.Round(0.07*s))
	l.bar = gridWidth(0.10*s, size)
	l.barX = math.Round(0.31*s) + math.Mod(l.bar, 2)/2
	l.barTop = math.Round(0.20 * s)
	l.barEnd = math.Round(0.56 * s)
	l.dotY = math.Round(0.74 * s)
	l.dotR = l.bar / 2 * 1.45 // whole over a bar×bar square, at twice the size too

	// The badge's digits are about 0.31 of the edge tall. Of the two fonts
	// at integer scales, the 5×7 one is taken unless the 3×5 one comes
	// more than a pixel closer (at 16 and 32 px it does: 5 and 10 px).
	target := 0.31 * s
	k5 := max(1, int(math.Round(target/float64(font3x5.h))))
	k7 := max(1, int(math.Round(target/float64(font5x7.h))))
	d5 := math.Abs(float64(k5*font3x5.h) - target)
	d7 := math.Abs(float64(k7*font5x7.h) - target)
	if d7 <= d5+1 {
		l.font, l.k = font5x7, k7
	} else {
		l.font, l.k = font3x5, k5
	}
	// One pixel of badge around the digits at 16–24 px, more above: the
	// badge stays small enough to leave the disc its lower left.
	gh := l.font.h * l.k
	l.pad = max(1, int(math.Round(0.15*float64(gh))))
	l.gap = max(1, int(math.Round(0.05*s)))
	l.grid = 1
	return l
}

// doubled is l at twice the size.
func (l layout) doubled() layout {
	d := l
	for _, f := range []*float64{&d.s, &d.discR, &d.wire, &d.nodeR, &d.nodeX, &d.cut, &d.bar, &d.barX, &d.barTop, &d.barEnd, &d.dotY, &d.dotR} {
		*f *= 2
	}
	d.k, d.pad, d.gap, d.grid = 2*l.k, 2*l.pad, 2*l.gap, 2*l.grid
	return d
}

// gridWidth rounds a stroke width w to whole pixels of the same parity as
// the edge, so a stroke centered on the icon's center line covers whole
// pixels; at least 2.
func gridWidth(w float64, size int) float64 {
	n := int(math.Round(w))
	if n%2 != size%2 {
		if float64(n) < w {
			n++
		} else {
			n--
		}
	}
	for n < 2 {
		n += 2
	}
	return float64(n)
}

// badgeBox returns the badge capsule for text: its two centers (x0, cy)
// and (x1, cy) and its radius, in pixels. The badge sits in the top right
// corner.
func (l layout) badgeBox(text string) (x0, x1, cy, r float64) {
	h := l.font.h*l.k + 2*l.pad
	w := max(h, l.font.width(text)*l.k+2*l.pad)
	r = float64(h) / 2
	x1 = l.s - r
	x0 = x1 - float64(w-h)
	return x0, x1, r, r
}

// textOrigin is the top-left pixel of the badge text.
func (l layout) textOrigin(text string) (left, top int) {
	x0, x1, cy, _ := l.badgeBox(text)
	tw, th := l.font.width(text)*l.k, l.font.h*l.k
	g := float64(l.grid)
	return l.grid * int(math.Round(((x0+x1)/2-float64(tw)/2)/g)), l.grid * int(math.Round((cy-float64(th)/2)/g))
}

// BadgeRect is where the badge of a Look's text is drawn in an icon of
// the given size: the capsule's bounding box.
func BadgeRect(text string, size int) image.Rectangle {
	l := layoutFor(max(size, minSize))
	x0, x1, cy, r := l.badgeBox(text)
	return image.Rect(int(math.Floor(x0-r)), int(math.Floor(cy-r)), int(math.Ceil(x1+r)), int(math.Ceil(cy+r)))
}

// drawLook renders lk with pal's colors.
func drawLook(lk Look, pal Palette, size int) *image.RGBA {
	size = max(size, minSize)
	l := layoutFor(size)
	c := &canvas{img: image.NewRGBA(image.Rect(0, 0, size, size)), s: l.s}
	mid := l.s / 2

	c.capsulePx(mid, mid, mid, mid, l.discR, pal.disc(lk))

	left, right := l.nodeX, l.s-l.nodeX
	switch {
	case lk.Approval:
		// Exclamation mark: a bar and a dot, moved left of the badge.
		x := mid
		if lk.Badge != "" {
			x = l.barX
		}
		c.capsulePx(x, l.barTop+l.bar/2, x, l.barEnd-l.bar/2, l.bar/2, pal.Mark)
		c.capsulePx(x, l.dotY, x, l.dotY, l.dotR, pal.Mark)
	case lk.Online:
		c.rect(left, mid-l.wire/2, right, mid+l.wire/2, pal.Mark)
		c.capsulePx(left, mid, left, mid, l.nodeR, pal.Mark)
		c.capsulePx(right, mid, right, mid, l.nodeR, pal.Mark)
	default:
		c.rect(left, mid-l.wire/2, mid-l.cut, mid+l.wire/2, pal.Mark)
		c.rect(mid+l.cut, mid-l.wire/2, right, mid+l.wire/2, pal.Mark)
		c.capsulePx(left, mid, left, mid, l.nodeR, pal.Mark)
		c.capsulePx(right, mid, right, mid, l.nodeR, pal.Mark)
	}

	if lk.Badge != "" {
		c.badge(l, lk.Badge, pal)
	}
	return c.img
}

// badge knocks a ring of panel out of the disc, draws the capsule and
// writes text in it.
func (c *canvas) badge(l layout, text string, pal Palette) {
	x0, x1, cy, r := l.badgeBox(text)
	c.erase(x0, cy, x1, cy, r+float64(l.gap))
	c.capsulePx(x0, cy, x1, cy, r, pal.Badge)

	x, top := l.textOrigin(text)
	f, k := l.font, l.k
	for _, ch := range text {
		for gy := range f.h {
			for gx := range f.w {
				if f.lit(ch, gx, gy) {
					c.fill(x+gx*k, top+gy*k, k, k, pal.Digits)
				}
			}
		}
		x += (f.w + 1) * k
	}
}

// canvas draws anti-aliased capsules by 4×4 supersampling, with integer
// compositing so results are exact and repeatable.
type canvas struct {
	img *image.RGBA
	s   float64 // edge in pixels
}

const sub = 4 // supersampling per axis

// capsulePx draws the set of points within r of segment a–b, in pixels.
func (c *canvas) capsulePx(ax, ay, bx, by, r float64, col color.RGBA) {
	c.cover(ax, ay, bx, by, r, func(p []uint8, n int) { blend(p, n, col) })
}

// rect draws the rectangle [x0,x1)×[y0,y1), in pixels, anti-aliased.
func (c *canvas) rect(x0, y0, x1, y1 float64, col color.RGBA) {
	b := c.img.Bounds()
	for y := max(b.Min.Y, int(math.Floor(y0))); y < min(b.Max.Y, int(math.Ceil(y1))); y++ {
		for x := max(b.Min.X, int(math.Floor(x0))); x < min(b.Max.X, int(math.Ceil(x1))); x++ {
			n := 0
			for sy := range sub {
				for sx := range sub {
					px := float64(x) + (float64(sx)+0.5)/sub
					py := float64(y) + (float64(sy)+0.5)/sub
					if px >= x0 && px < x1 && py >= y0 && py < y1 {
						n++
					}
				}
			}
			if n > 0 {
				i := c.img.PixOffset(x, y)
				blend(c.img.Pix[i:i+4], n, col)
			}
		}
	}
}

// blend lays col over the premultiplied pixel p with coverage n/sub².
func blend(p []uint8, n int, col color.RGBA) {
	for i, v := range [4]uint8{col.R, col.G, col.B, col.A} {
		p[i] = uint8((int(v)*n + int(p[i])*(sub*sub-n) + sub*sub/2) / (sub * sub))
	}
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
