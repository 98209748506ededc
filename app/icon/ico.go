package icon

import (
	"encoding/binary"
	"fmt"
	"image"
	"math"
	"strconv"
)

// ICOSizes are the images an ICO of the tray icon holds: Windows' small
// icon at 100, 125, 150, 200, 250 and 300% display scale. Windows picks
// the one it needs instead of scaling one image.
var ICOSizes = []int{16, 20, 24, 32, 40, 48}

// ICO encodes a Look drawn for panel p at each of sizes (ICOSizes when
// none are given) as a Windows icon file, the format fyne.io/systray's
// SetIcon wants on Windows. Every image is a 32-bit BGRA bitmap with its
// alpha, the form every Windows since XP reads.
func ICO(l Look, p Panel, sizes ...int) []byte {
	if len(sizes) == 0 {
		sizes = ICOSizes
	}
	const dirLen, entryLen, headerLen = 6, 16, 40
	imgs := make([][]byte, len(sizes))
	for i, s := range sizes {
		imgs[i] = dib(RenderLook(l, p, s))
	}
	out := make([]byte, dirLen+entryLen*len(sizes))
	le := binary.LittleEndian
	le.PutUint16(out[2:], 1) // type: icon
	le.PutUint16(out[4:], uint16(len(sizes)))
	offset := len(out)
	for i, b := range imgs {
		s := max(sizes[i], minSize)
		e := out[dirLen+entryLen*i:]
		e[0], e[1] = sizeByte(s), sizeByte(s)
		le.PutUint16(e[4:], 1)  // planes
		le.PutUint16(e[6:], 32) // bits per pixel
		le.PutUint32(e[8:], uint32(len(b)))
		le.PutUint32(e[12:], uint32(offset))
		offset += len(b)
	}
	for _, b := range imgs {
		out = append(out, b...)
	}
	return out
}

// sizeByte is an ICO directory's width or height: 0 means 256.
func sizeByte(s int) byte {
	if s >= 256 {
		return 0
	}
	return byte(s)
}

// dib encodes img as an ICO image: a BITMAPINFOHEADER with twice the
// height, the pixels bottom-up as BGRA with straight alpha, then the 1-bit
// AND mask (set where the pixel is fully transparent, for old readers).
func dib(img *image.RGBA) []byte {
	w, h := img.Bounds().Dx(), img.Bounds().Dy()
	maskRow := (w + 31) / 32 * 4
	b := make([]byte, 40+w*h*4+maskRow*h)
	le := binary.LittleEndian
	le.PutUint32(b[0:], 40)
	le.PutUint32(b[4:], uint32(w))
	le.PutUint32(b[8:], uint32(2*h))
	le.PutUint16(b[12:], 1)
	le.PutUint16(b[14:], 32)
	le.PutUint32(b[20:], uint32(w*h*4+maskRow*h))
	px := b[40:]
	mask := b[40+w*h*4:]
	for y := range h {
		row := h - 1 - y // bottom-up
		for x := range w {
			c := img.RGBAAt(x, y)
			o := (row*w + x) * 4
			px[o+0], px[o+1], px[o+2], px[o+3] = unpremul(c.B, c.A), unpremul(c.G, c.A), unpremul(c.R, c.A), c.A
			if c.A == 0 {
				mask[row*maskRow+x/8] |= 0x80 >> (x % 8)
			}
		}
	}
	return b
}

// unpremul turns a premultiplied channel into a straight one.
func unpremul(v, a uint8) uint8 {
	if a == 0 {
		return 0
	}
	return uint8(min(255, (int(v)*255+int(a)/2)/int(a)))
}

// TrayScaleEnv are the variables TraySize reads for the display scale, in
// order: GTK's and Qt's integer and fractional scale factors.
var TrayScaleEnv = []string{"GDK_SCALE", "QT_SCALE_FACTOR"}

// Bounds of AWP_TRAY_ICON_SIZE: below 16 nothing reads, above 256 no tray
// shows it.
const (
	minTraySize = 16
	maxTraySize = 256
)

// TraySize is the edge of the one image to hand a StatusNotifierItem host
// (fyne.io/systray sends one): $AWP_TRAY_ICON_SIZE when it is set
// (16–256), else 22 (the size KDE Plasma and Xfce show) times the
// display's integer scale ($GDK_SCALE, else $QT_SCALE_FACTOR rounded), so
// a host at scale 2 gets the 44 px icon, 22 px doubled. getenv is
// os.Getenv in the app. An unusable value is reported and ignored.
func TraySize(getenv func(string) string) (size int, err error) {
	if v := getenv("AWP_TRAY_ICON_SIZE"); v != "" {
		n, perr := strconv.Atoi(v)
		if perr == nil && n >= minTraySize && n <= maxTraySize {
			return n, nil
		}
		err = fmt.Errorf("icon: AWP_TRAY_ICON_SIZE=%q: want a number of pixels from %d to %d", v, minTraySize, maxTraySize)
	}
	scale := 1
	for _, name := range TrayScaleEnv {
		if v := getenv(name); v != "" {
			f, perr := strconv.ParseFloat(v, 64)
			if perr == nil && f >= 1 && f <= 8 {
				scale = int(math.Round(f))
				break
			}
		}
	}
	return DefaultSize * scale, err
}
