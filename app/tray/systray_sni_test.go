//go:build (linux || freebsd || openbsd || netbsd) && !android

package tray

import (
	"bytes"
	"fmt"
	"image"
	"testing"

	"github.com/awp-tray/awp-tray/app/icon"
)

// systrayPixels is what fyne.io/systray makes of SetIcon's bytes on this
// platform: a copy of convertToPixels and argbForImage (systray_unix.go,
// the same in the version go.mod names and in v1.12.2). It decodes with
// image.Decode and keeps the low byte of each value RGBA returns.
func systrayPixels(data []byte) (w, h int, argb []byte, err error) {
	img, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return 0, 0, nil, err
	}
	w, h = img.Bounds().Dx(), img.Bounds().Dy()
	argb = make([]byte, w*h*4)
	i := 0
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			r, g, b, a := img.At(x, y).RGBA()
			argb[i] = byte(a)
			argb[i+1] = byte(r)
			argb[i+2] = byte(g)
			argb[i+3] = byte(b)
			i += 4
		}
	}
	return w, h, argb, nil
}

// unpremul turns a premultiplied channel into a straight one.
func unpremul(v, a uint8) int {
	if a == 0 {
		return 0
	}
	return min(255, (int(v)*255+int(a)/2)/int(a))
}

// TestSystrayIconPixels: the bytes Systray hands systray.SetIcon, through
// systray's own conversion, give the StatusNotifierItem host every pixel
// of the icon as drawn, in straight alpha (what xfce4-panel's host reads),
// within ±1 — the antialiased edges included. Handing systray the PNG, as
// before, fails: the half-transparent pixels come out as noise.
func TestSystrayIconPixels(t *testing.T) {
	states := []icon.State{{}, {PeersUp: 1}, {PeersUp: 1, Unread: 3}, {PeersUp: 2, Unread: 120, Approvals: 1}, {Approvals: 2}}
	sizes := append(append([]int{}, icon.TraySizes...), 44, 64)
	for _, s := range states {
		for _, p := range []icon.Panel{icon.PanelDark, icon.PanelLight} {
			for _, size := range sizes {
				t.Run(fmt.Sprintf("%+v/%s/%d", s, p, size), func(t *testing.T) {
					want := icon.Render(s, p, size)
					b, err := systrayIcon(icon.PNG(s, p, size))
					if err != nil {
						t.Fatal(err)
					}
					w, h, got, err := systrayPixels(b)
					if err != nil {
						t.Fatal(err)
					}
					if w != size || h != size {
						t.Fatalf("pixmap is %d×%d, want %d×%d", w, h, size, size)
					}
					partial, bad := 0, 0
					for y := range size {
						for x := range size {
							c := want.RGBAAt(x, y)
							if c.A != 0 && c.A != 255 {
								partial++
							}
							exp := [4]int{int(c.A), unpremul(c.R, c.A), unpremul(c.G, c.A), unpremul(c.B, c.A)}
							px := got[4*(y*w+x):][:4]
							for i := range 4 {
								if d := int(px[i]) - exp[i]; d < -1 || d > 1 {
									if bad++; bad <= 3 {
										t.Errorf("pixel (%d,%d): host gets ARGB %v, want %v", x, y, px, exp)
									}
									break
								}
							}
						}
					}
					if bad > 3 {
						t.Errorf("… %d pixels wrong in all", bad)
					}
					if partial == 0 {
						t.Fatal("the icon has no half-transparent pixel: the test proves nothing")
					}
				})
			}
		}
	}
}

// TestPixmapDecodeRejects: the private format's decoder refuses a wrong
// header, edges out of bounds and short pixel data, with an error.
func TestPixmapDecodeRejects(t *testing.T) {
	good := encodePixmap(icon.Render(icon.State{PeersUp: 1}, icon.PanelDark, 22))
	hdr := func(w, h uint32) []byte {
		b := append([]byte(pixmapMagic), byte(w>>24), byte(w>>16), byte(w>>8), byte(w), byte(h>>24), byte(h>>16), byte(h>>8), byte(h))
		return b
	}
	for name, b := range map[string][]byte{
		"truncated header": good[:pixmapHeaderLen-1],
		"short pixels":     good[:len(good)-1],
		"zero width":       hdr(0, 22),
		"huge":             append(hdr(maxPixmapEdge+1, 1), make([]byte, 4*(maxPixmapEdge+1))...),
		"4G×4G":            hdr(1<<32-1, 1<<32-1),
	} {
		if _, _, err := image.Decode(bytes.NewReader(b)); err == nil {
			t.Errorf("%s: decoded", name)
		}
	}
	if _, _, err := image.Decode(bytes.NewReader(good)); err != nil {
		t.Errorf("a good pixmap: %v", err)
	}
}

// FuzzPixmapDecode: any bytes decode without panic, to an image whose
// pixel data is exactly its edges' worth, and what encodePixmap writes
// decodes back to the same bytes.
func FuzzPixmapDecode(f *testing.F) {
	f.Add(encodePixmap(icon.Render(icon.State{PeersUp: 1, Unread: 3}, icon.PanelLight, 16)))
	f.Add([]byte(pixmapMagic + "\x00\x00\x00\x01\x00\x00\x00\x01\x80\xff\x00\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		img, err := decodePixmap(bytes.NewReader(b))
		if err != nil {
			return
		}
		p := img.(*pixmap)
		if len(p.pix) != 4*p.w*p.h || p.w > maxPixmapEdge || p.h > maxPixmapEdge {
			t.Fatalf("%d×%d with %d bytes", p.w, p.h, len(p.pix))
		}
		w, h, argb, err := systrayPixels(b)
		if err != nil || w != p.w || h != p.h || !bytes.Equal(argb, p.pix) {
			t.Fatalf("systray's conversion does not give back the pixels (err %v)", err)
		}
		if again := encodePixmap(img); !bytes.Equal(again[pixmapHeaderLen:], p.pix) {
			t.Fatal("re-encoding changed the pixels")
		}
	})
}
