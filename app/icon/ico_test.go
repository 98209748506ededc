package icon

import (
	"bytes"
	"encoding/binary"
	"runtime"
	"testing"
)

// TestICO reads the icon file back the way Windows does (directory, then
// each BITMAPINFOHEADER image bottom-up with its AND mask) and compares
// every image with the renderer's pixels.
func TestICO(t *testing.T) {
	l := Look{Online: true, Badge: "7"}
	b := ICO(l, PanelLight)
	le := binary.LittleEndian
	if le.Uint16(b[0:]) != 0 || le.Uint16(b[2:]) != 1 || int(le.Uint16(b[4:])) != len(ICOSizes) {
		t.Fatalf("header % x", b[:6])
	}
	for i, size := range ICOSizes {
		e := b[6+16*i:]
		if int(e[0]) != size || int(e[1]) != size || le.Uint16(e[4:]) != 1 || le.Uint16(e[6:]) != 32 {
			t.Fatalf("entry %d: % x", i, e[:16])
		}
		n, off := int(le.Uint32(e[8:])), int(le.Uint32(e[12:]))
		if off+n > len(b) {
			t.Fatalf("entry %d: %d bytes at %d past the end (%d)", i, n, off, len(b))
		}
		img := b[off : off+n]
		if le.Uint32(img[0:]) != 40 || int(le.Uint32(img[4:])) != size || int(le.Uint32(img[8:])) != 2*size || le.Uint16(img[14:]) != 32 {
			t.Fatalf("%d px: header % x", size, img[:16])
		}
		want := RenderLook(l, PanelLight, size)
		maskRow := (size + 31) / 32 * 4
		if n != 40+size*size*4+maskRow*size {
			t.Fatalf("%d px: %d bytes", size, n)
		}
		px, mask := img[40:], img[40+size*size*4:]
		for y := range size {
			row := size - 1 - y
			for x := range size {
				c := want.RGBAAt(x, y)
				o := (row*size + x) * 4
				a := px[o+3]
				if a != c.A {
					t.Fatalf("%d px (%d,%d): alpha %d, want %d", size, x, y, a, c.A)
				}
				// Premultiplied again, the channels are the renderer's (±1 for rounding).
				for ch, got := range [3]uint8{px[o+2], px[o+1], px[o]} {
					pre := int(got) * int(a) / 255
					if d := pre - int([3]uint8{c.R, c.G, c.B}[ch]); d < -1 || d > 1 {
						t.Fatalf("%d px (%d,%d) channel %d: %d, want %d", size, x, y, ch, pre, [3]uint8{c.R, c.G, c.B}[ch])
					}
				}
				masked := mask[row*maskRow+x/8]&(0x80>>(x%8)) != 0
				if masked != (c.A == 0) {
					t.Fatalf("%d px (%d,%d): AND mask %v with alpha %d", size, x, y, masked, c.A)
				}
			}
		}
	}
	if got := ICO(l, PanelDark, 256); got[6] != 0 || got[7] != 0 {
		t.Errorf("256 px entry size bytes % x, want 0 0", got[6:8])
	}
}

func TestTraySize(t *testing.T) {
	for _, tc := range []struct {
		env     map[string]string
		want    int
		wantErr bool
	}{
		{nil, 22, false},
		{map[string]string{"GDK_SCALE": "2"}, 44, false},
		{map[string]string{"QT_SCALE_FACTOR": "1.5"}, 44, false}, // rounded: 2
		{map[string]string{"QT_SCALE_FACTOR": "1.25"}, 22, false},
		{map[string]string{"GDK_SCALE": "x", "QT_SCALE_FACTOR": "3"}, 66, false},
		{map[string]string{"AWP_TRAY_ICON_SIZE": "24", "GDK_SCALE": "2"}, 24, false},
		{map[string]string{"AWP_TRAY_ICON_SIZE": "9"}, 22, true},
		{map[string]string{"AWP_TRAY_ICON_SIZE": "big", "GDK_SCALE": "2"}, 44, true},
	} {
		got, err := TraySize(func(k string) string { return tc.env[k] })
		if got != tc.want || (err != nil) != tc.wantErr {
			t.Errorf("TraySize(%v) = %d, %v; want %d, error %v", tc.env, got, err, tc.want, tc.wantErr)
		}
	}
}

// The cache hands out the ICO when asked for one, and draws again when
// the format changes.
func TestCacheICO(t *testing.T) {
	var c Cache
	s := State{PeersUp: 1, Unread: 3}
	_, _, b, changed := c.get(s, true)
	if !changed || string(b[:4]) != "\x00\x00\x01\x00" || !bytes.Equal(b, ICO(s.Look(), PanelDark)) {
		t.Fatalf("ico: changed=%v header % x", changed, b[:4])
	}
	if _, _, _, changed = c.get(s, true); changed {
		t.Error("same look as ICO drew again")
	}
	p, changed := c.PNG(s)
	if !changed || !bytes.Equal(p, PNG(s, PanelDark, DefaultSize)) {
		t.Error("PNG after ICO is not the PNG")
	}
	want := p
	if runtime.GOOS == "windows" {
		want = ICO(s.Look(), PanelDark)
	}
	if got, _ := c.Tray(s); !bytes.Equal(got, want) {
		t.Errorf("Tray on %s is not the %s form", runtime.GOOS, map[bool]string{true: "ICO", false: "PNG"}[runtime.GOOS == "windows"])
	}
}
