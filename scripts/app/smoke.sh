#!/bin/sh
# Smoke test of the tray app on a virtual display: Xvfb, a private D-Bus
# session bus with a minimal StatusNotifierWatcher, the tray menu read and
# clicked over com.canonical.dbusmenu, screenshots in build/screenshots/.
#
# Needs: xvfb dbus xdotool imagemagick (and the Fyne build deps:
# gcc libgl1-mesa-dev xorg-dev). Run from anywhere:
#   scripts/app/smoke.sh [go test flags…]
# AWP_TRAY_BIN / AWP_BIN may name prebuilt binaries to test instead.
set -eu
cd "$(dirname "$0")/../.."
for tool in Xvfb dbus-daemon xdotool import identify; do
	command -v "$tool" >/dev/null 2>&1 || { echo "smoke: $tool is missing (apt-get install xvfb dbus xdotool imagemagick)" >&2; exit 1; }
done
mkdir -p build/screenshots
LANG=${LANG:-C.UTF-8} exec go test -tags smoke -count=1 -v "$@" ./app/smoketest/
