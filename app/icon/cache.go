package icon

import (
	"fmt"
	"sync"
)

// Cache renders the tray icon only when its Look changes. The zero value
// renders at DefaultSize; it is safe for concurrent use.
type Cache struct {
	// Size is the icon edge in pixels; 0 means DefaultSize. Set it before
	// the first call.
	Size int

	mu sync.Mutex
	// mu guards:
	have    bool
	look    Look
	png     []byte
	renders int
}

// PNG returns the icon for s as PNG bytes. changed is true when the Look
// differs from the previous call's (always on the first call): only then
// is the icon drawn again and does the tray need updating.
func (c *Cache) PNG(s State) (png []byte, changed bool) {
	l := s.Look()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.have && l == c.look {
		return c.png, false
	}
	size := c.Size
	if size <= 0 {
		size = DefaultSize
	}
	c.png = encode(RenderLook(l, size))
	c.look, c.have = l, true
	c.renders++
	return c.png, true
}

// Renders counts the icons drawn so far (for tests and debug logs).
func (c *Cache) Renders() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.renders
}

// ResourceName names a Look uniquely ("awp-tray-online-unread3.png"): for
// logs, tests and toolkits that cache images by name.
func ResourceName(l Look) string {
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
	return fmt.Sprintf("awp-tray-%s.png", state)
}
