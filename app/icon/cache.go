package icon

import (
	"fmt"
	"runtime"
	"sync"
)

// Cache renders the tray icon only when what it shows changes: the Look,
// or the Panel it is drawn for. The zero value renders at DefaultSize for
// PanelDark; it is safe for concurrent use.
type Cache struct {
	// Size is the icon edge in pixels; 0 means DefaultSize. Set it before
	// the first call.
	Size int

	mu sync.Mutex
	// mu guards:
	panel   Panel
	have    bool
	look    Look
	drawn   Panel  // the panel look was drawn for
	ico     bool   // b is an ICO, not a PNG
	b       []byte // the icon drawn
	renders int
}

// SetPanel chooses the variant: the next PNG draws for p. It
// reports whether that changes the icon (then the tray needs the icon
// again).
func (c *Cache) SetPanel(p Panel) (changed bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	changed = p != c.panel
	c.panel = p
	return changed
}

// Panel returns the panel the icon is drawn for.
func (c *Cache) Panel() Panel {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.panel
}

// PNG returns the icon for s as PNG bytes. changed is true when the Look
// or the Panel differs from the previous call's (always on the first
// call): only then is the icon drawn again and does the tray need
// updating.
func (c *Cache) PNG(s State) (png []byte, changed bool) {
	_, _, png, changed = c.get(s, false)
	return png, changed
}

// Tray is PNG in the form fyne.io/systray's SetIcon wants on this
// platform: an ICO with every size Windows picks from (ICOSizes) on
// Windows, the PNG elsewhere (a StatusNotifierItem pixmap, the macOS menu
// bar).
func (c *Cache) Tray(s State) (b []byte, changed bool) {
	_, _, b, changed = c.get(s, runtime.GOOS == "windows")
	return b, changed
}

// get draws s as PNG, or as ICO, when its look or the panel changed; it
// also returns what was drawn.
func (c *Cache) get(s State, ico bool) (l Look, p Panel, b []byte, changed bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	size := c.Size
	if size <= 0 {
		size = DefaultSize
	}
	l = s.Look()
	if c.have && l == c.look && c.drawn == c.panel && c.ico == ico {
		return l, c.panel, c.b, false
	}
	if ico {
		c.b = ICO(l, c.panel)
	} else {
		c.b = encode(RenderLook(l, c.panel, size))
	}
	c.look, c.drawn, c.ico, c.have = l, c.panel, ico, true
	c.renders++
	return l, c.panel, c.b, true
}

// Renders counts the icons drawn so far (for tests and debug logs).
func (c *Cache) Renders() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.renders
}

// ResourceName names a Look drawn for a Panel uniquely
// ("awp-tray-online-unread3-dark.png"): for logs, tests and toolkits that
// cache images by name, as Fyne does.
func ResourceName(l Look, p Panel) string {
	state := "offline"
	if l.Online {
		state = "online"
	}
	if l.Approval {
		state += "-approval"
	}
	if l.Badge != "" {
		state += "-unread" + l.Badge
	}
	return fmt.Sprintf("awp-tray-%s-%s.png", state, p)
}
