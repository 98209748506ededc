package assets

import (
	"bytes"
	"image"
	"image/draw"
	"image/png"
	"testing"

	"fyne.io/fyne/v2"

	"github.com/awp-tray/awp-tray/app/icon"
)

// TestAssetsMatchRenderer fails when the bundled PNGs are stale: run
// `go generate ./assets`.
func TestAssetsMatchRenderer(t *testing.T) {
	for _, tc := range []struct {
		res  fyne.Resource
		s    icon.State
		size int
	}{
		{Icon, icon.State{PeersUp: 1}, 512},
		{TrayOnline, icon.State{PeersUp: 1}, icon.DefaultSize},
		{TrayOffline, icon.State{}, icon.DefaultSize},
	} {
		got := decode(t, tc.res.Content())
		want := decode(t, icon.PNG(tc.s, tc.size))
		if got.Bounds() != want.Bounds() || !bytes.Equal(got.Pix, want.Pix) {
			t.Errorf("%s differs from icon.Render(%+v, %d): run go generate ./assets", tc.res.Name(), tc.s, tc.size)
		}
	}
}

// decode decodes a PNG into RGBA; both sides of a comparison go through it
// so only pixels count, not the encoder's byte choices.
func decode(t *testing.T, b []byte) *image.RGBA {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	out := image.NewRGBA(img.Bounds())
	draw.Draw(out, out.Bounds(), img, img.Bounds().Min, draw.Src)
	return out
}
