package icon

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"testing"
)

const S = DefaultSize

// at returns the pixel at fractions (fx, fy) of the edge.
func at(img *image.RGBA, fx, fy float64) color.RGBA {
	return img.RGBAAt(int(fx*float64(S)), int(fy*float64(S)))
}

func TestBadgeText(t *testing.T) {
	for n, want := range map[int]string{-1: "", 0: "", 1: "1", 9: "9", 10: "10", 99: "99", 100: "99+", 5000: "99+"} {
		if got := BadgeText(n); got != want {
			t.Errorf("BadgeText(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestRenderBaseColors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		s      State
		base   color.RGBA
		center color.RGBA // pixel in the middle of the disc
	}{
		{"online", State{PeersUp: 2}, ColorOnline, ColorGlyph},       // the wire runs through the center
		{"offline", State{}, ColorOffline, ColorOffline},             // the wire is cut there
		{"approval", State{Approvals: 1}, ColorApproval, ColorGlyph}, // on the exclamation bar
		{"approval offline", State{Approvals: 2, PeersUp: 0}, ColorApproval, ColorGlyph},
	} {
		t.Run(tc.name, func(t *testing.T) {
			img := Render(tc.s, S)
			if got := at(img, 0.5, 0.85); got != tc.base {
				t.Errorf("lower disc = %v, want %v", got, tc.base)
			}
			if got := at(img, 0.5, 0.5); got != tc.center {
				t.Errorf("center = %v, want %v", got, tc.center)
			}
			if got := img.RGBAAt(0, 0); got.A != 0 {
				t.Errorf("corner alpha = %d, want transparent", got.A)
			}
			if got := img.RGBAAt(0, S-1); got.A != 0 {
				t.Errorf("bottom-left corner alpha = %d, want transparent", got.A)
			}
		})
	}
}

func TestRenderApprovalHidesWire(t *testing.T) {
	img := Render(State{PeersUp: 1, Approvals: 1}, S)
	// Where the online icon has its left node, the approval icon is plain amber.
	if got := at(img, nodeLeft, 0.5); got != ColorApproval {
		t.Errorf("left node area = %v, want amber %v", got, ColorApproval)
	}
	on := Render(State{PeersUp: 1}, S)
	if got := at(on, nodeLeft, 0.5); got != ColorGlyph {
		t.Errorf("online left node = %v, want white", got)
	}
}

// badgeCounts counts badge-red pixels inside the badge box and white
// pixels inside the text box.
func badgeCounts(img *image.RGBA, text string) (red, white int) {
	size := img.Bounds().Dx()
	r := BadgeRect(text, size)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if img.RGBAAt(x, y) == ColorBadge {
				red++
			}
		}
	}
	left, top := textOrigin(text, float64(size))
	_, _, _, _, k := badgeGeometry(text, float64(size))
	tr := image.Rect(left, top, left+textWidth(text)*k, top+glyphH*k)
	for y := tr.Min.Y; y < tr.Max.Y; y++ {
		for x := tr.Min.X; x < tr.Max.X; x++ {
			if img.RGBAAt(x, y) == ColorGlyph {
				white++
			}
		}
	}
	return red, white
}

func TestRenderBadge(t *testing.T) {
	none := Render(State{PeersUp: 1}, S)
	if red, _ := badgeCounts(none, "1"); red != 0 {
		t.Fatalf("no unread: %d badge pixels, want 0", red)
	}
	one := Render(State{PeersUp: 1, Unread: 1}, S)
	red, white := badgeCounts(one, "1")
	if red < 100 {
		t.Errorf("unread 1: %d badge pixels, want a visible badge", red)
	}
	// The digit "1" has 8 lit font pixels, each k×k screen pixels.
	_, _, _, _, k := badgeGeometry("1", S)
	if want := 8 * k * k; white != want {
		t.Errorf("unread 1: %d white pixels in the badge, want %d (the digit)", white, want)
	}
	// "8" lights 13 font pixels: the count must follow the digit.
	_, white8 := badgeCounts(Render(State{PeersUp: 1, Unread: 8}, S), "8")
	if want := 13 * k * k; white8 != want {
		t.Errorf("unread 8: %d white pixels, want %d", white8, want)
	}
	// A transparent ring separates the badge from the disc: just outside
	// the badge, toward the disc's center, the disc is knocked out.
	x0, _, cy, br, _ := badgeGeometry("1", S)
	d := br + badgeGap*S/2
	px, py := int(x0-d*0.7071), int(cy+d*0.7071)
	if got := one.RGBAAt(px, py); got.A > 64 {
		t.Errorf("ring pixel (%d,%d) = %v, want (nearly) transparent", px, py, got)
	}
	if got := none.RGBAAt(px, py); got != ColorOnline {
		t.Errorf("same pixel without badge = %v, want the disc", got)
	}
}

func TestRenderWideBadge(t *testing.T) {
	a := Render(State{Unread: 100}, S)
	b := Render(State{Unread: 123456}, S)
	if !bytes.Equal(a.Pix, b.Pix) {
		t.Error("100 and 123456 unread draw differently; both should show 99+")
	}
	w1 := BadgeRect("9", S).Dx()
	w3 := BadgeRect("99+", S).Dx()
	if w3 <= w1 {
		t.Errorf("99+ badge width %d not wider than single digit %d", w3, w1)
	}
	if !BadgeRect("99+", S).In(image.Rect(0, 0, S, S)) {
		t.Errorf("99+ badge %v leaves the icon", BadgeRect("99+", S))
	}
	if _, white := badgeCounts(a, "99+"); white == 0 {
		t.Error("99+ badge has no text")
	}
}

func TestRenderDeterministic(t *testing.T) {
	s := State{PeersUp: 3, Unread: 42, Approvals: 1}
	if !bytes.Equal(PNG(s, S), PNG(s, S)) {
		t.Fatal("two renders of one state differ")
	}
	// Only the look matters: 3 peers up draws like 1.
	if !bytes.Equal(Render(s, S).Pix, Render(State{PeersUp: 1, Unread: 42, Approvals: 5}, S).Pix) {
		t.Error("states with one look draw differently")
	}
	img, err := png.Decode(bytes.NewReader(PNG(s, S)))
	if err != nil {
		t.Fatal(err)
	}
	if img.Bounds().Dx() != S || img.Bounds().Dy() != S {
		t.Errorf("PNG is %v, want %dx%d", img.Bounds(), S, S)
	}
}

func TestRenderScales(t *testing.T) {
	for _, size := range []int{16, 22, 32, 48, 256} {
		img := Render(State{PeersUp: 1, Unread: 5}, size)
		if img.Bounds().Dx() != size {
			t.Errorf("size %d: got %v", size, img.Bounds())
		}
		if got := img.RGBAAt(size/2, size*85/100); got != ColorOnline {
			t.Errorf("size %d: lower disc = %v", size, got)
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
		t.Fatalf("same look: changed=%v same=%v renders=%d", changed, bytes.Equal(r2, r1), c.Renders())
	}
	r3, changed := c.PNG(State{PeersUp: 4, Unread: 2})
	if !changed || bytes.Equal(r3, r1) || c.Renders() != 2 {
		t.Fatalf("unread: changed=%v renders=%d", changed, c.Renders())
	}
	if _, changed = c.PNG(State{PeersUp: 4, Unread: 2, Approvals: 1}); !changed {
		t.Error("approval did not change the icon")
	}
	if _, changed = c.PNG(State{PeersUp: 0, Unread: 2, Approvals: 1}); !changed {
		t.Error("going offline did not change the icon")
	}
	img, err := png.Decode(bytes.NewReader(r3))
	if err != nil {
		t.Fatal(err)
	}
	if img.Bounds().Dx() != DefaultSize {
		t.Errorf("cached icon is %v", img.Bounds())
	}
}

func TestResourceName(t *testing.T) {
	got := ResourceName(Look{Online: true, Approval: true, Badge: "99+"})
	if got != "awp-tray-online-approval-unread99+.png" {
		t.Errorf("ResourceName = %q", got)
	}
	if ResourceName(Look{}) != "awp-tray-offline.png" {
		t.Errorf("ResourceName(zero) = %q", ResourceName(Look{}))
	}
}
