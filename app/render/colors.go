package render

import (
	"hash/fnv"
	"image/color"
	"math"
)

// AAContrast is the contrast ratio WCAG 2 level AA asks of body text
// against its background (success criterion 1.4.3).
const AAContrast = 4.5

// secondaryTarget is the contrast a secondary line aims at: AA with a
// little room, so rounding to 8-bit channels never drops it below.
const secondaryTarget = AAContrast + 0.3

// Luminance is a colour's relative luminance (WCAG 2), 0 for black to 1
// for white. Alpha is ignored: pass the colour as drawn.
func Luminance(c color.Color) float64 {
	r, g, b, _ := color.NRGBAModel.Convert(c).RGBA()
	lin := func(v uint32) float64 {
		s := float64(v>>8) / 255
		if s <= 0.04045 {
			return s / 12.92
		}
		return math.Pow((s+0.055)/1.055, 2.4)
	}
	return 0.2126*lin(r) + 0.7152*lin(g) + 0.0722*lin(b)
}

// Contrast is the WCAG 2 contrast ratio of two colours, from 1 to 21.
func Contrast(a, b color.Color) float64 {
	la, lb := Luminance(a), Luminance(b)
	if la < lb {
		la, lb = lb, la
	}
	return (la + 0.05) / (lb + 0.05)
}

// Over is c drawn over an opaque bg (its alpha applied).
func Over(c, bg color.Color) color.NRGBA {
	f := color.NRGBAModel.Convert(c).(color.NRGBA)
	b := color.NRGBAModel.Convert(bg).(color.NRGBA)
	a := float64(f.A) / 255
	mix := func(x, y uint8) uint8 { return uint8(math.Round(float64(x)*a + float64(y)*(1-a))) }
	return color.NRGBA{mix(f.R, b.R), mix(f.G, b.G), mix(f.B, b.B), 255}
}

// Secondary is the colour of a row's second line (preview, time): the
// foreground faded toward the background as far as the line still meets
// AA contrast on it. fg and bg are the theme's, bg opaque.
func Secondary(fg, bg color.Color) color.NRGBA {
	f := Over(fg, bg)
	b := Over(bg, bg)
	best := f
	for t := 0.05; t <= 0.8; t += 0.05 {
		mix := func(x, y uint8) uint8 { return uint8(math.Round(float64(x)*(1-t) + float64(y)*t)) }
		c := color.NRGBA{mix(f.R, b.R), mix(f.G, b.G), mix(f.B, b.B), 255}
		if Contrast(c, b) < secondaryTarget {
			break
		}
		best = c
	}
	return best
}

// AvatarColors are the backgrounds of peers' initials: distinct hues, each
// dark enough that a white initial meets AA on it (TestAvatarContrast).
var AvatarColors = []color.NRGBA{
	{0x1f, 0x6f, 0xb2, 0xff}, // blue
	{0x2e, 0x7d, 0x32, 0xff}, // green
	{0xb2, 0x3c, 0x17, 0xff}, // rust
	{0x6a, 0x1b, 0x9a, 0xff}, // purple
	{0x00, 0x69, 0x6f, 0xff}, // teal
	{0xad, 0x14, 0x57, 0xff}, // magenta
	{0x5d, 0x4f, 0x37, 0xff}, // brown
	{0x3f, 0x51, 0xb5, 0xff}, // indigo
}

// AvatarColor is the colour of a peer's initial, the same for its key on
// every run and machine.
func AvatarColor(peerKey string) color.NRGBA {
	h := fnv.New32a()
	h.Write([]byte(peerKey))
	return AvatarColors[h.Sum32()%uint32(len(AvatarColors))]
}

// Toward is c moved toward black or white, whichever raises its contrast
// with other, just far enough to reach AA with a little room (c itself
// when it already does). For a fill under text of colour other.
func Toward(c, other color.Color) color.NRGBA {
	f := color.NRGBAModel.Convert(c).(color.NRGBA)
	f.A = 255
	end := color.NRGBA{0, 0, 0, 255}
	if Luminance(other) < 0.18 {
		end = color.NRGBA{255, 255, 255, 255}
	}
	for t := 0.0; t <= 1; t += 0.02 {
		mix := func(x, y uint8) uint8 { return uint8(math.Round(float64(x)*(1-t) + float64(y)*t)) }
		m := color.NRGBA{mix(f.R, end.R), mix(f.G, end.G), mix(f.B, end.B), 255}
		if Contrast(m, other) >= secondaryTarget {
			return m
		}
	}
	return end
}
