package assets

import (
	"bytes"
	"image"
	"image/draw"
	"image/png"
	"testing"

	"github.com/awp-tray/awp-tray/app/icon"
)

// TestAssetsMatchRenderer fails when the bundled PNG is stale: run
// `go generate ./assets`.
func TestAssetsMatchRenderer(t *testing.T) {
	got := decode(t, Icon.Content())
	want := decode(t, icon.PNG(icon.State{PeersUp: 1}, icon.PanelLight, 512))
	if got.Bounds() != want.Bounds() || !bytes.Equal(got.Pix, want.Pix) {
		t.Errorf("%s differs from the renderer's app icon: run go generate ./assets", Icon.Name())
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
