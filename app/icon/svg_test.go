package icon

import (
	"bytes"
	"encoding/xml"
	"image"
	"image/draw"
	"image/png"
	"io"
	"os/exec"
	"testing"
)

// TestSVGMatchesRender rasterizes the SVG with rsvg-convert (librsvg, what
// GNOME and most desktops draw scalable icons with) and compares it with
// the 64 px render: the same shapes, so every pixel but the anti-aliased
// edges matches.
func TestSVGMatchesRender(t *testing.T) {
	for _, p := range []Panel{PanelDark, PanelLight} {
		for _, l := range looks {
			svg := SVG(l, p)
			d := xml.NewDecoder(bytes.NewReader(svg))
			for {
				if _, err := d.Token(); err == io.EOF {
					break
				} else if err != nil {
					t.Fatalf("%s %+v: not well-formed XML: %v\n%s", p, l, err, svg)
				}
			}
			rc, err := exec.LookPath("rsvg-convert")
			if err != nil {
				t.Skip("rsvg-convert not installed (apt-get install librsvg2-bin)")
			}
			cmd := exec.Command(rc, "-w", "64", "-h", "64", "-f", "png")
			cmd.Stdin = bytes.NewReader(svg)
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("rsvg-convert: %v", err)
			}
			img, err := png.Decode(bytes.NewReader(out))
			if err != nil {
				t.Fatal(err)
			}
			got := image.NewRGBA(img.Bounds())
			draw.Draw(got, got.Bounds(), img, image.Point{}, draw.Src)
			want := RenderLook(l, p, 64)
			off := 0
			for i := 0; i < len(want.Pix); i += 4 {
				for c := range 4 {
					if d := int(got.Pix[i+c]) - int(want.Pix[i+c]); d < -24 || d > 24 {
						off++
						break
					}
				}
			}
			// The edges of the disc, the nodes, the badge and the ring are
			// anti-aliased differently: under 1% of the pixels (16 at most
			// when this was written).
			if off > 64*64/100 {
				t.Errorf("%s %+v: %d of %d pixels differ from the render", p, l, off, 64*64)
			}
		}
	}
}
