//go:build smoke

package smoketest

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// shot is a screenshot of part of the screen: pixel (x, y) of the image
// is (x, y) + At on the screen.
type shot struct {
	img image.Image
	At  image.Point
}

// grab takes a screenshot of r on the display's root window with
// ImageMagick's import (which reads the X server's pixels: what a person
// would see).
func grab(display string, r image.Rectangle) (shot, error) {
	cmd := exec.Command("import", "-window", "root",
		"-crop", fmt.Sprintf("%dx%d+%d+%d", r.Dx(), r.Dy(), r.Min.X, r.Min.Y), "+repage", "png:-")
	cmd.Env = append(os.Environ(), "DISPLAY="+display)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return shot{}, fmt.Errorf("import: %v %s", err, stderr.String())
	}
	img, err := png.Decode(bytes.NewReader(out))
	if err != nil {
		return shot{}, fmt.Errorf("import's PNG: %v", err)
	}
	return shot{img: img, At: r.Min}, nil
}

// save writes the shot to build/screenshots/name and logs where.
func (s shot) save(t *testing.T, name string) {
	t.Helper()
	dir := filepath.Join(moduleRoot, "build", "screenshots")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := png.Encode(&b, s.img); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs(p)
	t.Logf("screenshot: %s", abs)
}

// rgb is a pixel's 8-bit channels.
func rgb(c color.Color) (r, g, b uint8) {
	r32, g32, b32, _ := c.RGBA()
	return uint8(r32 >> 8), uint8(g32 >> 8), uint8(b32 >> 8)
}

// near matches pixels within tol of want in every channel. The host
// scales the icon, which blends its edges; the inside of each shape keeps
// its exact colour.
func near(want color.RGBA, tol int) func(r, g, b uint8) bool {
	d := func(a, b uint8) bool { x := int(a) - int(b); return x <= tol && x >= -tol }
	return func(r, g, b uint8) bool { return d(r, want.R) && d(g, want.G) && d(b, want.B) }
}

// brighter matches pixels whose every channel is at least min.
func brighter(min uint8) func(r, g, b uint8) bool {
	return func(r, g, b uint8) bool { return r >= min && g >= min && b >= min }
}

// black matches Xvfb's empty root window.
func black(r, g, b uint8) bool { return r == 0 && g == 0 && b == 0 }

// count counts the pixels of s within r (screen coordinates; the whole
// shot when r is empty) that match.
func (s shot) count(r image.Rectangle, match func(r, g, b uint8) bool) int {
	n := 0
	s.each(r, func(x, y int, c color.Color) {
		if match(rgb(c)) {
			n++
		}
	})
	return n
}

// bounds is the smallest rectangle, in screen coordinates, holding every
// matching pixel of s within r (empty when none matches).
func (s shot) bounds(r image.Rectangle, match func(r, g, b uint8) bool) image.Rectangle {
	var box image.Rectangle
	s.each(r, func(x, y int, c color.Color) {
		if match(rgb(c)) {
			box = box.Union(image.Rect(x, y, x+1, y+1))
		}
	})
	return box
}

// each calls f for every pixel of s within r, in screen coordinates.
func (s shot) each(r image.Rectangle, f func(x, y int, c color.Color)) {
	b := s.img.Bounds()
	area := b.Add(s.At.Sub(b.Min))
	if !r.Empty() {
		area = area.Intersect(r)
	}
	for y := area.Min.Y; y < area.Max.Y; y++ {
		for x := area.Min.X; x < area.Max.X; x++ {
			f(x, y, s.img.At(x-s.At.X+b.Min.X, y-s.At.Y+b.Min.Y))
		}
	}
}
