// Command genicons writes the app's PNG icons into assets/ from the same
// renderer the tray uses (app/icon), so the packaged icon and the tray
// icon look alike. Run it from the module root: go generate ./assets.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/awp-tray/awp-tray/app/icon"
)

func main() {
	out := flag.String("out", "assets", "directory to write the icons into")
	flag.Parse()
	files := map[string][]byte{
		"icon.png":         icon.PNG(icon.State{PeersUp: 1}, 512),
		"tray-online.png":  icon.PNG(icon.State{PeersUp: 1}, icon.DefaultSize),
		"tray-offline.png": icon.PNG(icon.State{}, icon.DefaultSize),
	}
	for name, b := range files {
		p := filepath.Join(*out, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "genicons:", err)
			os.Exit(1)
		}
		fmt.Println("wrote", p)
	}
}
