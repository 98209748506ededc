package icon

import (
	"fmt"
	"image/color"
	"strings"
)

// svgSize is the SVG's view box edge: the geometry of the 64 px icon.
const svgSize = 64

// SVG draws a Look for panel p as an SVG image with the geometry of the
// 64 px icon (view box 0 0 64 64), for the scalable icon of the hicolor
// theme. It draws what RenderLook draws, as shapes.
func SVG(lk Look, p Panel) []byte {
	pal := p.palette()
	l := layoutFor(svgSize)
	mid := l.s / 2
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d">`+"\n", svgSize, svgSize, svgSize, svgSize)
	disc := "<g>"
	if lk.Badge != "" {
		x0, x1, cy, r := l.badgeBox(lk.Badge)
		g := r + float64(l.gap)
		fmt.Fprintf(&b, `<mask id="ring"><rect width="%d" height="%d" fill="#fff"/>%s</mask>`+"\n",
			svgSize, svgSize, capsule(x0, x1, cy, g, "#000"))
		disc = `<g mask="url(#ring)">`
	}
	b.WriteString(disc + "\n")
	fmt.Fprintf(&b, `<circle cx="%g" cy="%g" r="%g" fill="%s"/>`+"\n", mid, mid, l.discR, hex(pal.disc(lk)))
	mark := hex(pal.Mark)
	left, right := l.nodeX, l.s-l.nodeX
	rect := func(x0, y0, x1, y1 float64) {
		fmt.Fprintf(&b, `<rect x="%g" y="%g" width="%g" height="%g" fill="%s"/>`+"\n", x0, y0, x1-x0, y1-y0, mark)
	}
	dot := func(x, y, r float64) {
		fmt.Fprintf(&b, `<circle cx="%g" cy="%g" r="%g" fill="%s"/>`+"\n", x, y, r, mark)
	}
	switch {
	case lk.Approval:
		x := mid
		if lk.Badge != "" {
			x = l.barX
		}
		b.WriteString(vcapsule(x, l.barTop, l.barEnd, l.bar/2, mark))
		dot(x, l.dotY, l.dotR)
	case lk.Online:
		rect(left, mid-l.wire/2, right, mid+l.wire/2)
		dot(left, mid, l.nodeR)
		dot(right, mid, l.nodeR)
	default:
		rect(left, mid-l.wire/2, mid-l.cut, mid+l.wire/2)
		rect(mid+l.cut, mid-l.wire/2, right, mid+l.wire/2)
		dot(left, mid, l.nodeR)
		dot(right, mid, l.nodeR)
	}
	b.WriteString("</g>\n")
	if lk.Badge != "" {
		x0, x1, cy, r := l.badgeBox(lk.Badge)
		b.WriteString(capsule(x0, x1, cy, r, hex(pal.Badge)) + "\n")
		x, top := l.textOrigin(lk.Badge)
		f, k := l.font, l.k
		fmt.Fprintf(&b, `<g fill="%s">`, hex(pal.Digits))
		for _, ch := range lk.Badge {
			for gy := range f.h {
				for gx := range f.w {
					if f.lit(ch, gx, gy) {
						fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d"/>`, x+gx*k, top+gy*k, k, k)
					}
				}
			}
			x += (f.w + 1) * k
		}
		b.WriteString("</g>\n")
	}
	b.WriteString("</svg>\n")
	return []byte(b.String())
}

// capsule is a horizontal capsule (centers x0 and x1 at height cy, radius
// r) as a rounded rectangle.
func capsule(x0, x1, cy, r float64, fill string) string {
	return fmt.Sprintf(`<rect x="%g" y="%g" width="%g" height="%g" rx="%g" fill="%s"/>`, x0-r, cy-r, x1-x0+2*r, 2*r, r, fill)
}

// vcapsule is a vertical capsule from top to end, r wide on each side.
func vcapsule(x, top, end, r float64, fill string) string {
	return fmt.Sprintf(`<rect x="%g" y="%g" width="%g" height="%g" rx="%g" fill="%s"/>`+"\n", x-r, top, 2*r, end-top, r, fill)
}

func hex(c color.RGBA) string { return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B) }
