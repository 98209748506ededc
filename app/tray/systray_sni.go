//go:build (linux || freebsd || openbsd || netbsd) && !android

package tray

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"io"
)

// The StatusNotifierItem icon, past fyne.io/systray's conversion.
//
// systray (systray_unix.go, convertToPixels and argbForImage, up to
// v1.12.2) decodes SetIcon's bytes with image.Decode and keeps the low
// byte of each 16-bit premultiplied value that color.Color.RGBA returns
// as the ARGB32 bytes of IconPixmap. That is right only for opaque and
// fully transparent pixels: a half-transparent pixel comes out as noise,
// the pink and cyan fringe around the disc's antialiased edge.
//
// systray has no entry that takes pixels, so on these platforms the tray
// hands it the icon in a private format, registered with image.Decode
// below, whose decoder returns colours whose RGBA low bytes are exactly
// the ARGB32 bytes the host wants. Those are straight (not premultiplied)
// alpha: xfce4-panel's StatusNotifierItem host (plugins/systray/sn-item.c,
// sn_item_extract_pixbuf) reorders ARGB to RGBA and makes a GdkPixbuf of
// it, and GdkPixbuf's alpha is straight; the spec ("ARGB32 format, in
// network byte order") says nothing of premultiplication.

// pixmapMagic starts the private format: bytes no other image format
// starts with, so image.Decode picks our decoder only for our bytes.
// Then come the width and the height (big-endian uint32) and, row by
// row, each pixel as straight-alpha A, R, G, B.
const pixmapMagic = "\x00awp-tray sni argb32\x00"

// maxPixmapEdge bounds a decoded pixmap's edge: the largest icon the
// tray draws is 256 px (AWP_TRAY_ICON_SIZE's bound), and 1024 keeps a
// decode under 4 MiB whatever the bytes say.
const maxPixmapEdge = 1024

const pixmapHeaderLen = len(pixmapMagic) + 8

func init() {
	image.RegisterFormat("awp-sni-argb32", pixmapMagic, decodePixmap, decodePixmapConfig)
}

// systrayIcon turns the PNG the tray draws into the bytes to hand
// systray.SetIcon on this platform: the private pixmap format.
func systrayIcon(pngBytes []byte) ([]byte, error) {
	img, err := png.Decode(bytes.NewReader(pngBytes))
	if err != nil {
		return nil, fmt.Errorf("tray icon: %w", err)
	}
	return encodePixmap(img), nil
}

// encodePixmap writes img in the private format, in straight alpha.
func encodePixmap(img image.Image) []byte {
	r := img.Bounds()
	if p, ok := img.(*pixmap); ok {
		// Its colours' RGBA are not premultiplied: copy, do not convert.
		return append(pixmapHeader(p.w, p.h), p.pix...)
	}
	n, ok := img.(*image.NRGBA)
	if !ok {
		n = image.NewNRGBA(r)
		draw.Draw(n, r, img, r.Min, draw.Src)
	}
	w, h := r.Dx(), r.Dy()
	b := pixmapHeader(w, h)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		row := n.Pix[n.PixOffset(r.Min.X, y):]
		for x := 0; x < w; x++ {
			p := row[4*x : 4*x+4 : 4*x+4]
			b = append(b, p[3], p[0], p[1], p[2])
		}
	}
	return b
}

// pixmapHeader starts a w×h pixmap, with room for its pixels.
func pixmapHeader(w, h int) []byte {
	b := make([]byte, pixmapHeaderLen, pixmapHeaderLen+4*w*h)
	copy(b, pixmapMagic)
	binary.BigEndian.PutUint32(b[len(pixmapMagic):], uint32(w))
	binary.BigEndian.PutUint32(b[len(pixmapMagic)+4:], uint32(h))
	return b
}

func readPixmapHeader(r io.Reader) (w, h int, err error) {
	var hdr [pixmapHeaderLen]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return 0, 0, fmt.Errorf("sni pixmap: header: %w", err)
	}
	if string(hdr[:len(pixmapMagic)]) != pixmapMagic {
		return 0, 0, errors.New("sni pixmap: not a pixmap")
	}
	uw := binary.BigEndian.Uint32(hdr[len(pixmapMagic):])
	uh := binary.BigEndian.Uint32(hdr[len(pixmapMagic)+4:])
	if uw == 0 || uh == 0 || uw > maxPixmapEdge || uh > maxPixmapEdge {
		return 0, 0, fmt.Errorf("sni pixmap: %d×%d: want edges from 1 to %d", uw, uh, maxPixmapEdge)
	}
	return int(uw), int(uh), nil
}

func decodePixmapConfig(r io.Reader) (image.Config, error) {
	w, h, err := readPixmapHeader(r)
	if err != nil {
		return image.Config{}, err
	}
	return image.Config{ColorModel: argbModel, Width: w, Height: h}, nil
}

func decodePixmap(r io.Reader) (image.Image, error) {
	br := bufio.NewReader(r)
	w, h, err := readPixmapHeader(br)
	if err != nil {
		return nil, err
	}
	pix := make([]byte, 4*w*h)
	if _, err := io.ReadFull(br, pix); err != nil {
		return nil, fmt.Errorf("sni pixmap: %d×%d pixels: %w", w, h, err)
	}
	return &pixmap{w: w, h: h, pix: pix}, nil
}

// pixmap is a decoded pixmap: straight-alpha ARGB32, row by row.
type pixmap struct {
	w, h int
	pix  []byte
}

func (p *pixmap) ColorModel() color.Model { return argbModel }
func (p *pixmap) Bounds() image.Rectangle { return image.Rect(0, 0, p.w, p.h) }

func (p *pixmap) At(x, y int) color.Color {
	if x < 0 || y < 0 || x >= p.w || y >= p.h {
		return argb{}
	}
	i := 4 * (y*p.w + x)
	return argb{p.pix[i], p.pix[i+1], p.pix[i+2], p.pix[i+3]}
}

// argb is one pixel as the host wants it: straight-alpha A, R, G, B.
//
// Its RGBA is for systray's argbForImage, which keeps the low bytes: it
// returns each byte widened to 16 bits (v*0x101), so the low byte is the
// byte itself. Those values are straight, not premultiplied as
// color.Color's contract asks; no one else decodes these bytes.
type argb struct{ a, r, g, b uint8 }

func (c argb) RGBA() (r, g, b, a uint32) {
	return uint32(c.r) * 0x101, uint32(c.g) * 0x101, uint32(c.b) * 0x101, uint32(c.a) * 0x101
}

// argbModel converts any colour to argb, unpremultiplying it.
var argbModel = color.ModelFunc(func(c color.Color) color.Color {
	if c, ok := c.(argb); ok {
		return c
	}
	n := color.NRGBAModel.Convert(c).(color.NRGBA)
	return argb{n.A, n.R, n.G, n.B}
})
