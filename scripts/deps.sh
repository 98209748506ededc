#!/usr/bin/env bash
# Installs the Debian packages a make target needs, only those missing.
# Usage: scripts/deps.sh run|test|package|cross
set -euo pipefail
build=(gcc pkg-config libgl1-mesa-dev libx11-dev libxcursor-dev libxrandr-dev libxinerama-dev libxi-dev libxxf86vm-dev)
runtime=(dbus dbus-x11 gnome-keyring libsecret-tools)
# bubblewrap: the exec sandbox; nodejs, npm: a real MCP client.
# xfce4-panel is the real tray host of the smoke tests (its systray plugin;
# xfconf keeps its settings; a font for its menus and tooltips).
# desktop-file-utils, appstream: validate the package's desktop entries and
# metainfo; librsvg2-bin: draw the scalable icon; make: the package's Makefile;
# python3-yaml: read the Flatpak manifest.
testing=(xvfb xauth imagemagick xdotool xsel dunst xfce4-panel xfconf fonts-dejavu-core systemd iproute2 zsh fish bubblewrap nodejs npm desktop-file-utils appstream librsvg2-bin make python3-yaml)
# make package: the validators, xz for the tarball.
package=(desktop-file-utils appstream xz-utils)
# make cross: the tray app for Windows.
cross=(gcc-mingw-w64-x86-64)
case "${1:-test}" in
  run) want=("${build[@]}" "${runtime[@]}") ;;
  test) want=("${build[@]}" "${runtime[@]}" "${testing[@]}" "${package[@]}" "${cross[@]}") ;;
  package) want=("${build[@]}" "${package[@]}") ;;
  cross) want=("${build[@]}" "${cross[@]}") ;;
  *) echo "usage: $0 run|test|package|cross" >&2; exit 2 ;;
esac
missing=()
for p in "${want[@]}"; do
  # node and npm from elsewhere (nodesource's nodejs carries npm and
  # conflicts with Debian's) do as well.
  case "$p" in
    nodejs) command -v node >/dev/null && continue ;;
    npm) command -v npm >/dev/null && continue ;;
  esac
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "installing: ${missing[*]}" >&2
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
command -v go >/dev/null || { echo "Go 1.26 is needed (https://go.dev/dl/); /usr/local/go/bin must be on PATH" >&2; exit 1; }
