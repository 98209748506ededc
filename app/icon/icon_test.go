package icon

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestBadgeText(t *testing.T) {
	for n, want := range map[int]string{-1: "", 0: "", 1: "1", 9: "9", 10: "9+", 99: "9+", 100: "9+", 5000: "9+"} {
		if got := BadgeText(n); got != want {
			t.Errorf("BadgeText(%d) = %q, want %q", n, got, want)
		}
	}
}

// Panels the variants are checked against: the colors of real panels.
var (
	darkPanels = map[string]color.RGBA{
		"black (GNOME top bar)":        {0x00, 0x00, 0x00, 0xff},
		"#202020 (Windows 11 dark)":    {0x20, 0x20, 0x20, 0xff},
		"#31363b (Breeze Dark)":        {0x31, 0x36, 0x3b, 0xff},
		"#3c3c3c (a lighter dark bar)": {0x3c, 0x3c, 0x3c, 0xff},
	}
	lightPanels = map[string]color.RGBA{
		"white":                    {0xff, 0xff, 0xff, 0xff},
		"#f3f3f3 (Windows 11)":     {0xf3, 0xf3, 0xf3, 0xff},
		"#eff0f1 (Breeze)":         {0xef, 0xf0, 0xf1, 0xff},
		"#d6d6d6 (a greyer light)": {0xd6, 0xd6, 0xd6, 0xff},
	}
)

// Contrast thresholds (WCAG 2.x ratios): 3:1 for a graphical object
// against what is around it (1.4.11), 4.5:1 for text (1.4.3). The marks
// on the disc are held to the text ratio too: they are what says online
// or offline.
const (
	minObject = 3.0
	minText   = 4.5
)

// looks are the looks every check runs over.
var looks = []Look{
	{},
	{Online: true},
	{Approval: true},
	{Online: true, Badge: "1"},
	{Online: true, Badge: "8"},
	{Badge: "9+"},
	{Approval: true, Badge: "2"},
	{Online: true, Approval: true, Badge: "9+"},
}

// checkSizes are the tray sizes and two larger ones.
var checkSizes = append(append([]int{}, TraySizes...), 44, 48, 64)

// The probe palette gives every part its own color, so a pixel of a probe
// render tells which part covers it wholly.
var (
	probeDisc   = color.RGBA{0, 0, 0xff, 0xff}
	probeMark   = color.RGBA{0, 0xff, 0, 0xff}
	probeBadge  = color.RGBA{0xff, 0, 0, 0xff}
	probeDigits = color.RGBA{0xff, 0xff, 0, 0xff}
	probe       = Palette{Online: probeDisc, Offline: probeDisc, Approval: probeDisc, Mark: probeMark, Badge: probeBadge, Digits: probeDigits}
)

// part is what a pixel of an icon shows.
type part int

const (
	partNone   part = iota // transparent, or an edge shared by two parts
	partDisc               // wholly disc
	partMark               // wholly mark
	partBadge              // wholly badge
	partDigits             // wholly digit
)

// parts classifies every pixel of a look at a size.
func parts(l Look, size int) ([]part, int) {
	img := drawLook(l, probe, size)
	n := img.Bounds().Dx()
	out := make([]part, n*n)
	for y := range n {
		for x := range n {
			switch img.RGBAAt(x, y) {
			case probeDisc:
				out[y*n+x] = partDisc
			case probeMark:
				out[y*n+x] = partMark
			case probeBadge:
				out[y*n+x] = partBadge
			case probeDigits:
				out[y*n+x] = partDigits
			}
		}
	}
	return out, n
}

// over composites the premultiplied icon over an opaque panel color.
func over(img *image.RGBA, bg color.RGBA) *image.RGBA {
	out := image.NewRGBA(img.Bounds())
	for i := 0; i < len(img.Pix); i += 4 {
		a := int(img.Pix[i+3])
		for c, v := range [3]uint8{bg.R, bg.G, bg.B} {
			out.Pix[i+c] = uint8(int(img.Pix[i+c]) + (int(v)*(255-a)+127)/255)
		}
		out.Pix[i+3] = 0xff
	}
	return out
}

// luminance is the WCAG relative luminance of an opaque color.
func luminance(c color.RGBA) float64 {
	lin := func(v uint8) float64 {
		s := float64(v) / 255
		if s <= 0.04045 {
			return s / 12.92
		}
		return math.Pow((s+0.055)/1.055, 2.4)
	}
	return 0.2126*lin(c.R) + 0.7152*lin(c.G) + 0.0722*lin(c.B)
}

// contrast is the WCAG contrast ratio of two opaque colors (1 to 21).
func contrast(a, b color.RGBA) float64 {
	la, lb := luminance(a), luminance(b)
	if la < lb {
		la, lb = lb, la
	}
	return (la + 0.05) / (lb + 0.05)
}

// checkContrast draws l for panel p at size, lays it over bg and checks
// the contrast of every wholly covered pixel against what it meets: the
// disc and the badge against the panel, the marks against the disc, the
// digits against the badge. It also counts pixels: the marks and the
// digits must be there in whole pixels, the digits exactly as the font
// has them. It returns what fails.
func checkContrast(l Look, pal Palette, size int, bg color.RGBA) []string {
	var bad []string
	img := over(drawLook(l, pal, size), bg)
	cls, n := parts(l, size)
	var disc, badge color.RGBA
	count := map[part]int{}
	for i, c := range cls {
		count[c]++
		switch c {
		case partDisc:
			disc = img.RGBAAt(i%n, i/n)
		case partBadge:
			badge = img.RGBAAt(i%n, i/n)
		}
	}
	worst := map[string]float64{}
	note := func(what string, r float64) {
		if w, ok := worst[what]; !ok || r < w {
			worst[what] = r
		}
	}
	for i, c := range cls {
		px := img.RGBAAt(i%n, i/n)
		switch c {
		case partDisc:
			note("disc/panel", contrast(px, bg))
		case partMark:
			note("mark/disc", contrast(px, disc))
		case partBadge:
			note("badge/panel", contrast(px, bg))
		case partDigits:
			note("digits/badge", contrast(px, badge))
		}
	}
	for what, min := range map[string]float64{"disc/panel": minObject, "mark/disc": minText, "badge/panel": minObject, "digits/badge": minText} {
		if r, ok := worst[what]; ok && r < min {
			bad = append(bad, fmt.Sprintf("%s %.2f:1 < %.1f:1", what, r, min))
		}
	}
	if count[partDisc] < n*n/5 {
		bad = append(bad, fmt.Sprintf("disc has %d whole pixels of %d", count[partDisc], n*n))
	}
	// The wire alone is two rows across the disc's middle third; the
	// exclamation mark a bar down a third of it and a dot.
	least := 2 * n / 3
	if l.Approval {
		least = n / 2
	}
	if count[partMark] < least {
		bad = append(bad, fmt.Sprintf("marks have %d whole pixels", count[partMark]))
	}
	if l.Badge != "" {
		lay := layoutFor(n)
		if want := lay.font.litCount(l.Badge) * lay.k * lay.k; count[partDigits] != want {
			bad = append(bad, fmt.Sprintf("badge %q has %d whole digit pixels, want %d", l.Badge, count[partDigits], want))
		}
	}
	return bad
}

// TestContrastOnPanels checks, in pixels, each variant on the panels it
// is for, at every tray size and two larger ones, in every look.
func TestContrastOnPanels(t *testing.T) {
	for _, v := range []struct {
		p      Panel
		panels map[string]color.RGBA
	}{{PanelDark, darkPanels}, {PanelLight, lightPanels}} {
		for name, bg := range v.panels {
			for _, size := range checkSizes {
				for _, l := range looks {
					for _, msg := range checkContrast(l, v.p.palette(), size, bg) {
						t.Errorf("%s variant on %s, %d px, %+v: %s", v.p, name, size, l, msg)
					}
				}
			}
		}
	}
}

// TestContrastCheckBites runs the check on the icon before it had
// variants (one palette, white marks on mid-tone discs): it must fail on
// a light panel, where the old icon was hard to read.
func TestContrastCheckBites(t *testing.T) {
	old := Palette{
		Online:   color.RGBA{0x17, 0x94, 0x86, 0xff},
		Offline:  color.RGBA{0x86, 0x8c, 0x96, 0xff},
		Approval: color.RGBA{0xf0, 0x9a, 0x16, 0xff},
		Mark:     color.RGBA{0xff, 0xff, 0xff, 0xff},
		Badge:    color.RGBA{0xd9, 0x2d, 0x2a, 0xff},
		Digits:   color.RGBA{0xff, 0xff, 0xff, 0xff},
	}
	fails := 0
	for _, l := range looks {
		fails += len(checkContrast(l, old, 22, lightPanels["white"]))
	}
	if fails == 0 {
		t.Fatal("the old single-variant icon passes the contrast check: the check is too lax")
	}
	// And a variant on the wrong panel fails too: the check sees panels.
	if len(checkContrast(Look{Online: true, Badge: "3"}, PanelDark.palette(), 22, lightPanels["white"])) == 0 {
		t.Error("the dark-panel variant passes on a white panel")
	}
}

// TestBadgeFits: at every size each badge text is whole inside the icon,
// leaves the disc's lower left half to the disc, and is kept apart from
// the disc by at least one pixel that is neither.
func TestBadgeFits(t *testing.T) {
	for _, size := range checkSizes {
		for _, text := range []string{"1", "4", "8", "9+"} {
			r := BadgeRect(text, size)
			if !r.In(image.Rect(0, 0, size, size)) {
				t.Errorf("%d px %q: badge %v leaves the icon", size, text, r)
			}
			if r.Dx() > size*3/4 || r.Dy() > size*3/5 {
				t.Errorf("%d px %q: badge %v covers too much of the icon", size, text, r)
			}
			cls, n := parts(Look{Online: true, Badge: text}, size)
			for y := range n {
				for x := range n {
					if cls[y*n+x] != partBadge && cls[y*n+x] != partDigits {
						continue
					}
					for dy := -1; dy <= 1; dy++ {
						for dx := -1; dx <= 1; dx++ {
							xx, yy := x+dx, y+dy
							if xx >= 0 && yy >= 0 && xx < n && yy < n && (cls[yy*n+xx] == partDisc || cls[yy*n+xx] == partMark) {
								t.Fatalf("%d px %q: badge pixel (%d,%d) touches the disc at (%d,%d)", size, text, x, y, xx, yy)
							}
						}
					}
				}
			}
		}
	}
}

// TestBadgeTextsDistinct: at every size, every count the badge can show
// draws different digits.
func TestBadgeTextsDistinct(t *testing.T) {
	for _, size := range checkSizes {
		seen := map[string]string{}
		for n := 1; n <= 12; n++ {
			text := BadgeText(n)
			key := string(RenderLook(Look{Online: true, Badge: text}, PanelDark, size).Pix)
			if prev, ok := seen[key]; ok && prev != text {
				t.Errorf("%d px: %q and %q draw alike", size, prev, text)
			}
			seen[key] = text
		}
		if len(seen) != 10 { // 1..9 and 9+
			t.Errorf("%d px: %d distinct badges for 1..12, want 10", size, len(seen))
		}
	}
}

// TestDoubleHalves: the 32, 44 and 48 px icons are the 16, 22 and 24 px
// ones at twice the size: every whole mark or digit pixel of the small
// icon is a 2×2 block of the same part in the large one, so a host or
// Windows halving the large icon gets the small one's marks and digits
// back. (The edges of the disc and the badge are curves, smoothed at each
// size: they are not compared.)
func TestDoubleHalves(t *testing.T) {
	for _, small := range TraySizes[:3] {
		for _, l := range looks {
			a, n := parts(l, small)
			b, m := parts(l, 2*small)
			if m != 2*n {
				t.Fatalf("%d px icon is %d px", 2*small, m)
			}
			for y := range n {
				for x := range n {
					want := a[y*n+x]
					if want != partMark && want != partDigits {
						continue
					}
					for _, d := range [][2]int{{0, 0}, {1, 0}, {0, 1}, {1, 1}} {
						if got := b[(2*y+d[1])*m+2*x+d[0]]; got != want {
							t.Fatalf("%+v: pixel (%d,%d) of %d px is part %d, its block in %d px has part %d", l, x, y, small, want, 2*small, got)
						}
					}
				}
			}
		}
	}
}

func TestRenderDeterministic(t *testing.T) {
	s := State{PeersUp: 3, Unread: 42, Approvals: 1}
	for _, p := range []Panel{PanelDark, PanelLight} {
		if !bytes.Equal(PNG(s, p, 64), PNG(s, p, 64)) {
			t.Fatal("two renders of one state differ")
		}
		// Only the look matters: 3 peers up draws like 1.
		if !bytes.Equal(Render(s, p, 64).Pix, Render(State{PeersUp: 1, Unread: 42, Approvals: 5}, p, 64).Pix) {
			t.Error("states with one look draw differently")
		}
	}
	if bytes.Equal(Render(s, PanelDark, 22).Pix, Render(s, PanelLight, 22).Pix) {
		t.Error("the two variants draw alike")
	}
	img, err := png.Decode(bytes.NewReader(PNG(s, PanelLight, 48)))
	if err != nil {
		t.Fatal(err)
	}
	if img.Bounds().Dx() != 48 || img.Bounds().Dy() != 48 {
		t.Errorf("PNG is %v, want 48x48", img.Bounds())
	}
	if got := Render(s, PanelDark, 8).Bounds().Dx(); got != minSize {
		t.Errorf("an 8 px request draws %d px, want %d", got, minSize)
	}
}

func TestRenderLooks(t *testing.T) {
	for _, p := range []Panel{PanelDark, PanelLight} {
		pal := p.palette()
		for _, size := range checkSizes {
			mid := size / 2
			low := size * 9 / 10
			for _, tc := range []struct {
				l          Look
				base, cent color.RGBA
			}{
				{Look{Online: true}, pal.Online, pal.Mark}, // the wire runs through the center
				{Look{}, pal.Offline, pal.Offline},         // it is cut there
				{Look{Approval: true}, pal.Approval, pal.Approval},
			} {
				img := RenderLook(tc.l, p, size)
				y := mid
				if tc.l.Approval {
					// The exclamation bar runs down the middle, above the center.
					tc.cent, y = pal.Mark, int(layoutFor(size).barTop+layoutFor(size).barEnd)/2
				}
				if got := img.RGBAAt(mid, low); got != tc.base {
					t.Errorf("%s %d px %+v: lower disc %v, want %v", p, size, tc.l, got, tc.base)
				}
				if got := img.RGBAAt(mid, y); got != tc.cent {
					t.Errorf("%s %d px %+v: center %v, want %v", p, size, tc.l, got, tc.cent)
				}
				if img.RGBAAt(0, 0).A != 0 || img.RGBAAt(0, size-1).A != 0 {
					t.Errorf("%s %d px %+v: a corner is not transparent", p, size, tc.l)
				}
			}
			// With a badge the exclamation mark moves left of it.
			lay := layoutFor(size)
			barY := int(lay.barTop+lay.barEnd) / 2
			img := RenderLook(Look{Approval: true, Badge: "9+"}, p, size)
			if got := img.RGBAAt(int(lay.barX), barY); got != pal.Mark {
				t.Errorf("%s %d px: exclamation bar beside the badge %v, want the mark", p, size, got)
			}
		}
	}
}

func TestCacheRendersOnlyOnChange(t *testing.T) {
	var c Cache
	r1, changed := c.PNG(State{PeersUp: 1})
	if !changed || c.Renders() != 1 {
		t.Fatalf("first call: changed=%v renders=%d", changed, c.Renders())
	}
	r2, changed := c.PNG(State{PeersUp: 4}) // same look
	if changed || !bytes.Equal(r2, r1) || c.Renders() != 1 {
		t.Fatalf("same look: changed=%v renders=%d", changed, c.Renders())
	}
	r3, changed := c.PNG(State{PeersUp: 4, Unread: 12})
	if !changed || bytes.Equal(r3, r1) || c.Renders() != 2 {
		t.Fatalf("unread: changed=%v renders=%d", changed, c.Renders())
	}
	// 12 and 13 both show 9+: no new icon.
	if _, changed = c.PNG(State{PeersUp: 4, Unread: 13}); changed {
		t.Error("12 → 13 unread drew again although both show 9+")
	}
	if _, changed = c.PNG(State{PeersUp: 4, Unread: 12, Approvals: 1}); !changed {
		t.Error("approval did not change the icon")
	}
	if _, changed = c.PNG(State{PeersUp: 0, Unread: 12, Approvals: 1}); !changed {
		t.Error("going offline did not change the icon")
	}
	if c.SetPanel(PanelDark) {
		t.Error("SetPanel(the same panel) reports a change")
	}
	if !c.SetPanel(PanelLight) || c.Panel() != PanelLight {
		t.Fatal("SetPanel(PanelLight) did not take")
	}
	r4, changed := c.PNG(State{PeersUp: 0, Unread: 12, Approvals: 1})
	if !changed {
		t.Error("a new panel did not draw again")
	}
	if !bytes.Equal(r4, encode(RenderLook(Look{Approval: true, Badge: "9+"}, PanelLight, DefaultSize))) {
		t.Error("the cached icon is not the light variant")
	}
	if _, changed := c.PNG(State{PeersUp: 0, Unread: 12, Approvals: 1}); changed {
		t.Error("the same look and panel drew again")
	}
	img, err := png.Decode(bytes.NewReader(r3))
	if err != nil {
		t.Fatal(err)
	}
	if img.Bounds().Dx() != DefaultSize {
		t.Errorf("cached icon is %v", img.Bounds())
	}
	c2 := Cache{Size: 64}
	if b, _ := c2.PNG(State{Unread: 12}); !bytes.Equal(b, PNG(State{Unread: 12}, PanelDark, 64)) {
		t.Error("Size 64: not the 64 px icon with 12 in the badge")
	}
}

func TestResourceName(t *testing.T) {
	if got := ResourceName(Look{Online: true, Approval: true, Badge: "99+"}, PanelDark); got != "awp-tray-online-approval-unread99+-dark.png" {
		t.Errorf("ResourceName = %q", got)
	}
	if got := ResourceName(Look{}, PanelLight); got != "awp-tray-offline-light.png" {
		t.Errorf("ResourceName(zero) = %q", got)
	}
}

// TestSheet draws every look at every tray size on every panel, as they
// are and magnified 8×, into $AWP_SCREENS/icons-{dark,light}.png, for a
// person to look at. It checks the sheet's size.
func TestSheet(t *testing.T) {
	dir := os.Getenv("AWP_SCREENS")
	for _, v := range []struct {
		p      Panel
		panels map[string]color.RGBA
	}{{PanelDark, darkPanels}, {PanelLight, lightPanels}} {
		sheet := drawSheet(v.p, v.panels)
		if want := sheetWidth(); sheet.Bounds().Dx() != want {
			t.Fatalf("sheet width %d, want %d", sheet.Bounds().Dx(), want)
		}
		if dir == "" {
			continue
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, "icons-"+v.p.String()+".png")
		if err := os.WriteFile(p, encode(sheet), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Log("wrote", p)
	}
}

const sheetZoom = 8

var sheetLooks = []Look{{}, {Online: true}, {Online: true, Badge: "3"}, {Online: true, Badge: "9+"}, {Approval: true}, {Approval: true, Badge: "9+"}}

// cellWidth is one look at one size on the sheet: 8×, a gap, 1×, a gap.
func cellWidth(size int) int { return size*sheetZoom + 6 + size + 10 }

func sheetWidth() int {
	w := 0
	for _, s := range TraySizes {
		w += len(sheetLooks) * cellWidth(s)
	}
	return w
}

// drawSheet lays out one row per panel: every tray size, each look 8×
// (nearest neighbour, every pixel shows) beside it at 1×, as the panel
// shows it.
func drawSheet(p Panel, panels map[string]color.RGBA) *image.RGBA {
	rowH := 32*sheetZoom + 8
	names := slices.Sorted(maps.Keys(panels))
	sheet := image.NewRGBA(image.Rect(0, 0, sheetWidth(), rowH*len(names)))
	for row, name := range names {
		bg := panels[name]
		for y := row * rowH; y < (row+1)*rowH; y++ {
			for x := range sheet.Bounds().Dx() {
				sheet.SetRGBA(x, y, bg)
			}
		}
		x := 0
		for _, size := range TraySizes {
			for _, l := range sheetLooks {
				img := over(RenderLook(l, p, size), bg)
				y0 := row*rowH + 4
				for yy := range size * sheetZoom {
					for xx := range size * sheetZoom {
						sheet.SetRGBA(x+xx, y0+yy, img.RGBAAt(xx/sheetZoom, yy/sheetZoom))
					}
				}
				for yy := range size {
					for xx := range size {
						sheet.SetRGBA(x+size*sheetZoom+6+xx, y0+yy, img.RGBAAt(xx, yy))
					}
				}
				x += cellWidth(size)
			}
		}
	}
	return sheet
}
