#!/usr/bin/env bash
# make cross: every desktop from this Linux box.
#   1. awp for linux, darwin and windows, amd64 and arm64 (CGO_ENABLED=0),
#      into build/cross/awp-OS-ARCH[.exe];
#   2. go vet with GOOS=darwin and GOOS=windows (CGO_ENABLED=0) on every
#      package that builds without cgo there: all but the Fyne UI (the
#      module root, whose GL driver is cgo, and on darwin what uses Fyne's
#      widgets, which are cgo there);
#   3. the tray app for windows/amd64 with the mingw-w64 cross compiler
#      (x86_64-w64-mingw32-gcc; Debian gcc-mingw-w64-x86-64) into
#      build/cross/awp-tray-windows-amd64.exe. CROSS_TRAY=0 skips it;
#      CROSS_TRAY=bg runs it beside steps 1 and 2 (make cross-ci).
# Each step prints its wall and CPU time. CROSS_TARGETS="OS/ARCH …" builds
# awp for those only.
#
# Cost (2026-12-01, go1.26.8, on a shared 2-core box): with an empty build
# cache each awp target takes about 200 s of CPU and the tray app about
# 490 s (cgo: go-gl and GLFW through mingw), some 28 CPU-minutes in all;
# with the cache of an earlier run, about 100 s of CPU. CI starts from an
# empty cache on a fresh machine, so it runs the reduced set of
# `make cross-ci` (Makefile) after make test, which has compiled the
# linux/amd64 packages already.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"
GO=${GO:-go}
out=build/cross
mkdir -p "$out"

timed() { # timed LABEL CMD…: runs CMD, prints the wall and CPU seconds it took
	local label=$1; shift
	local t0 c0 t1 c1
	t0=$(date +%s.%N); c0=$(cpu)
	"$@"
	t1=$(date +%s.%N); c1=$(cpu)
	awk -v l="$label" -v w="$(awk -v a="$t0" -v b="$t1" 'BEGIN{print b-a}')" -v c="$(awk -v a="$c0" -v b="$c1" 'BEGIN{print b-a}')" \
		'BEGIN { printf "cross: %-34s %6.1f s wall %7.1f s cpu\n", l, w, c }'
}
cpu() { # CPU seconds used so far by this shell's finished children
	local ticks; ticks=$(getconf CLK_TCK)
	awk -v t="$ticks" '{print ($16 + $17) / t}' /proc/$BASHPID/stat
}

# tray_build: step 3 (below). CROSS_TRAY=bg (make cross-ci) starts it
# first, in the background: its cgo part (go-gl and GLFW through mingw)
# compiles C on one core for minutes, while the Go builds of steps 1 and 2
# use the other; on 2 cores this saves about as much wall time as the
# shorter of the two takes.
tray_build() {
	command -v x86_64-w64-mingw32-gcc >/dev/null || { echo "cross: x86_64-w64-mingw32-gcc is missing (apt-get install gcc-mingw-w64-x86-64)" >&2; return 1; }
	timed "awp-tray windows/amd64 (mingw)" env CC=x86_64-w64-mingw32-gcc CGO_ENABLED=1 GOOS=windows GOARCH=amd64 \
		"$GO" build -ldflags "-s -w -H windowsgui" -o "$out/awp-tray-windows-amd64.exe" .
}
tray_pid=""
if [ "${CROSS_TRAY:-1}" = bg ]; then
	tray_build &
	tray_pid=$!
fi

for target in ${CROSS_TARGETS:-linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64}; do
	os=${target%/*} arch=${target#*/}
	ext=""; [ "$os" = windows ] && ext=.exe
	timed "awp $os/$arch" env CGO_ENABLED=0 GOOS="$os" GOARCH="$arch" \
		"$GO" build -ldflags "-s -w" -o "$out/awp-$os-$arch$ext" ./cmd/awp
done

# vet_packages OS ARCH: the packages (with their tests) that build without
# cgo on OS. A package is left out only when it depends on a Fyne package
# that is cgo on OS; any other load error fails.
vet_packages() {
	local os=$1 arch=$2 cgo_only='fyne.io/fyne/v2/internal/driver/glfw'
	# On darwin Fyne's widgets and fyne.io/systray (the menu bar) are cgo.
	[ "$os" = darwin ] && cgo_only="$cgo_only|fyne.io/fyne/v2/internal/widget|fyne.io/systray"
	# One line per package and per test variant, named after the package
	# it tests; the test binaries' mains (*.test) are left out.
	CGO_ENABLED=0 GOOS=$os GOARCH=$arch "$GO" list -e -test \
		-f '{{if .ForTest}}{{.ForTest}}{{else}}{{.ImportPath}}{{end}} {{join .Deps " "}}' ./... |
		grep -v '^[^ ]*\.test ' |
		awk -v bad=" ($cgo_only)( |$)" '{ all[$1] = 1; if ($0 ~ bad) skip[$1] = 1 }
			END { for (p in all) if (!(p in skip)) print p }' | sort
}
# darwin on arm64 (Apple silicon), windows on amd64: each shares its
# compiled dependencies with the awp build for that platform.
for target in ${CROSS_VET-darwin/arm64 windows/amd64}; do
	os=${target%/*} arch=${target#*/}
	pkgs=$(vet_packages "$os" "$arch")
	echo "cross: vet $os/$arch: $(echo "$pkgs" | wc -l) packages"
	timed "vet $os/$arch" env CGO_ENABLED=0 GOOS="$os" GOARCH="$arch" "$GO" vet $pkgs
done

if [ -n "$tray_pid" ]; then
	wait "$tray_pid" || { echo "cross: the Windows tray build failed" >&2; exit 1; }
elif [ "${CROSS_TRAY:-1}" != 0 ]; then
	tray_build
fi
ls -l "$out"
