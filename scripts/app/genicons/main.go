// Command genicons writes the app's icons from the renderer the tray uses
// (app/icon), so the packaged icon and the tray icon look alike:
//
//	genicons -out DIR       DIR/icon.png, the 512 px app icon (go generate ./assets)
//	genicons -hicolor DIR   DIR/NxN/apps/dev.awp.tray.png for every hicolor size,
//	                        and DIR/scalable/apps/dev.awp.tray.svg
//	genicons -ico FILE      a Windows icon of the app, 16 to 256 px
//
// The app icon is the online look drawn for a light panel (a deep disc
// with a white wire): it reads on light and dark backgrounds alike.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/awp-tray/awp-tray/app/icon"
)

// AppID names the icon files (the desktop entry's Icon=).
const AppID = "dev.awp.tray"

func main() {
	out := flag.String("out", "", "directory to write icon.png (the 512 px app icon) into")
	hicolor := flag.String("hicolor", "", "hicolor theme directory to write the app icon into, every size")
	ico := flag.String("ico", "", "file to write the app icon into as a Windows .ico")
	flag.Parse()
	if *out == "" && *hicolor == "" && *ico == "" {
		fmt.Fprintln(os.Stderr, "genicons: give -out, -hicolor or -ico")
		os.Exit(2)
	}
	files := map[string][]byte{}
	if *out != "" {
		files[filepath.Join(*out, "icon.png")] = icon.AppPNG(512)
	}
	if *hicolor != "" {
		for _, s := range icon.HicolorSizes {
			files[filepath.Join(*hicolor, fmt.Sprintf("%dx%d", s, s), "apps", AppID+".png")] = icon.AppPNG(s)
		}
		files[filepath.Join(*hicolor, "scalable", "apps", AppID+".svg")] = icon.SVG(icon.AppLook, icon.AppPanel)
	}
	if *ico != "" {
		files[*ico] = icon.ICO(icon.AppLook, icon.AppPanel, 16, 24, 32, 48, 64, 256)
	}
	for p, b := range files {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			fail(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			fail(err)
		}
		fmt.Println("wrote", p)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "genicons:", err)
	os.Exit(1)
}
