// Command pkgtree lays out what a Linux package of AWP installs, under a
// staging root, from the code that writes the same files at run time (so
// the package and the app agree):
//
//	ROOT/PREFIX/bin/awp-tray, awp                     (-bin: the binaries to copy)
//	ROOT/PREFIX/share/applications/dev.awp.tray.desktop    the launcher (app/autostart)
//	ROOT/PREFIX/share/metainfo/dev.awp.tray.metainfo.xml   AppStream (packaging/linux)
//	ROOT/PREFIX/share/icons/hicolor/NxN/apps/dev.awp.tray.png, scalable/…svg (app/icon)
//	ROOT/PREFIX/lib/systemd/user/awp.service           the user unit (internal/service)
//	ROOT/etc/xdg/autostart/dev.awp.tray.desktop        the login entry (app/autostart)
//
// Run it from the module root: go run ./scripts/app/pkgtree -root DIR.
// make package stages the tarball with it; the Flatpak manifest installs
// with it (-prefix /app -no-etc).
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/awp-tray/awp-tray/app/autostart"
	"github.com/awp-tray/awp-tray/app/icon"
	"github.com/awp-tray/awp-tray/internal/service"
	"github.com/awp-tray/awp-tray/peer"
)

func main() {
	root := flag.String("root", "", "staging root to write into (required)")
	prefix := flag.String("prefix", "/usr", "installation prefix the files are for")
	bin := flag.String("bin", "", "directory holding awp-tray and awp to copy into PREFIX/bin (none: no binaries)")
	metainfo := flag.String("metainfo", filepath.Join("packaging", "linux", autostart.AppID+".metainfo.xml"), "the AppStream file to install")
	noEtc := flag.Bool("no-etc", false, "leave out etc/xdg/autostart (a Flatpak has no /etc of its own)")
	flag.Parse()
	if *root == "" || !filepath.IsAbs(*prefix) || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: pkgtree -root DIR [-prefix /usr] [-bin DIR] [-metainfo FILE] [-no-etc]")
		os.Exit(2)
	}
	if err := stage(*root, *prefix, *bin, *metainfo, !*noEtc); err != nil {
		fmt.Fprintln(os.Stderr, "pkgtree:", err)
		os.Exit(1)
	}
}

// stage writes the tree.
func stage(root, prefix, bin, metainfo string, etc bool) error {
	p := filepath.Join(root, prefix)
	files := map[string][]byte{
		filepath.Join(p, "share", "applications", autostart.FileName): []byte(autostart.Launcher("awp-tray")),
		filepath.Join(p, "lib", "systemd", "user", service.UnitName): []byte(service.Unit{
			Exec: filepath.Join(prefix, "bin", "awp"), WorkingDirectory: "%h", Version: peer.Version, Packaged: true,
		}.String()),
		filepath.Join(p, "share", "icons", "hicolor", "scalable", "apps", autostart.AppID+".svg"): icon.SVG(icon.AppLook, icon.AppPanel),
	}
	for _, s := range icon.HicolorSizes {
		files[filepath.Join(p, "share", "icons", "hicolor", fmt.Sprintf("%dx%d", s, s), "apps", autostart.AppID+".png")] = icon.AppPNG(s)
	}
	if etc {
		files[filepath.Join(root, "etc", "xdg", "autostart", autostart.FileName)] =
			[]byte(autostart.DesktopFile(autostart.App(filepath.Join(prefix, "bin", "awp-tray"), nil)))
	}
	mi, err := os.ReadFile(metainfo)
	if err != nil {
		return err
	}
	files[filepath.Join(p, "share", "metainfo", filepath.Base(metainfo))] = mi
	for path, b := range files {
		if err := write(path, b, 0o644); err != nil {
			return err
		}
	}
	if bin == "" {
		return nil
	}
	for _, name := range []string{"awp-tray", "awp"} {
		if err := copyFile(filepath.Join(bin, name), filepath.Join(p, "bin", name), 0o755); err != nil {
			return err
		}
	}
	return nil
}

func write(path string, b []byte, mode os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, b, mode)
}

func copyFile(from, to string, mode os.FileMode) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
