package icon

// The app icon: the program's own (menus, docks, file managers, the
// hicolor theme), not the tray icon. It is the online look drawn for a
// light panel (a deep disc with a white wire), which reads on light and
// dark backgrounds alike; the same as assets/icon.png.
var (
	AppLook  = Look{Online: true}
	AppPanel = PanelLight
)

// HicolorSizes are the sizes of the app icon in the hicolor theme.
var HicolorSizes = []int{16, 22, 24, 32, 48, 64, 128, 256, 512}

// AppPNG is the app icon as a PNG of size×size pixels.
func AppPNG(size int) []byte { return PNG(State{PeersUp: 1}, AppPanel, size) }
