#!/bin/sh
# Smoke test of the tray app on a virtual display: Xvfb, a private D-Bus
# session bus with a minimal StatusNotifierWatcher, the tray menu read and
# clicked over com.canonical.dbusmenu; xfce4-panel's system tray as a real
# tray host, checked through the screen's pixels; screenshots in
# build/screenshots/.
#
# Needs: xvfb dbus xdotool imagemagick dunst xfce4-panel (and the Fyne
# build deps: gcc libgl1-mesa-dev xorg-dev; scripts/deps.sh test installs
# them all). Run from anywhere:
#   scripts/app/smoke.sh [go test flags…]
# AWP_TRAY_BIN / AWP_BIN may name prebuilt binaries to test instead.
set -eu
cd "$(dirname "$0")/../.."
# A missing tool fails here rather than skipping its tests unseen.
for tool in Xvfb dbus-daemon dbus-run-session xdotool xsel import identify dunst xfce4-panel; do
	command -v "$tool" >/dev/null 2>&1 || { echo "smoke: $tool is missing (scripts/deps.sh test, or apt-get install xvfb dbus xdotool xsel imagemagick dunst xfce4-panel)" >&2; exit 1; }
done
mkdir -p build/screenshots
LANG=${LANG:-C.UTF-8} exec go test -tags smoke -count=1 -v "$@" ./app/smoketest/
