# awp-tray: the commands the README names. Every target installs the Debian
# packages it needs when they are missing (scripts/deps.sh).
SHELL := /bin/bash
export PATH := $(PATH):/usr/local/go/bin
GO ?= go
BUILD := build
DATA ?= $(HOME)/.config/awp
TESTFLAGS ?= -timeout 25m
FUZZTIME ?= 30s

.PHONY: all run run-headless test test-mcp test-long test-race bench bench-attack fuzz package cross cross-ci smoke measure-idle icons awp tray deps-run deps-test deps-package deps-cross vet fmt-check clean

all: awp tray

deps-run:
	@scripts/deps.sh run
deps-test:
	@scripts/deps.sh test
deps-package:
	@scripts/deps.sh package

awp:
	CGO_ENABLED=0 $(GO) build -buildvcs=auto -o $(BUILD)/awp ./cmd/awp

tray: deps-run
	$(GO) build -o $(BUILD)/awp-tray .

# The tray app, on the default data dir (override with DATA=...).
run: tray awp
	$(BUILD)/awp-tray --data "$(DATA)"

# The headless peer on the default data dir, for servers.
run-headless: awp
	$(BUILD)/awp run --data "$(DATA)"

vet:
	$(GO) vet ./...

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

test: deps-test fmt-check vet awp
	$(GO) test $(TESTFLAGS) ./...
	scripts/mcp/e2e.sh $(BUILD)/awp
	AWP_IDLE_SECONDS=$${AWP_IDLE_SECONDS:-5} scripts/app/smoke.sh

# awp mcp driven by the official MCP TypeScript SDK client (part of test).
test-mcp: deps-test awp
	scripts/mcp/e2e.sh $(BUILD)/awp

# The race detector (with checkptr) over every package but app: app's
# tests run on fyne's test driver, which calls fyne.Do on the caller's
# goroutine instead of the UI one, and fyne's own caches race under it.
# Several minutes on 2 cores; not part of test.
test-race: deps-test awp
	$(GO) test -race $(TESTFLAGS) $$($(GO) list ./... | grep -v '/app$$')

# Long crash tests: random kill points, at least 20 iterations.
test-long: deps-test awp
	AWP_LONG=1 $(GO) test -timeout 60m -run 'Crash' -v ./cmd/awp/... ./peer/...

bench: awp
	$(GO) run ./cmd/awpbench

# Hostile peers wearing one node down (issue 18): CPU seconds, memory and
# descriptors each attack costs, and what a legitimate peer sees meanwhile
# (docs/performance.md "Under attack: …"). The disk attack needs a tmpfs, so
# root; it is skipped otherwise.
bench-attack:
	$(GO) test -run '^$$' -bench 'Attack' -benchtime 1x -timeout 40m ./peer/

fuzz:
	@set -e; for pkg_target in \
	  ./peer/wire:FuzzReadLine ./peer/wire:FuzzDecode ./peer/wire:FuzzDecodeLoose ./peer/wire:FuzzCanonical ./peer/wire:FuzzChunkDecode \
	  ./peer:FuzzHandshake ./peer/grant:FuzzParseVerify ./peer/grant:FuzzCanonicalFixedPoint ./peer/grant:FuzzGrantID \
	  ./peer/transport:FuzzParseAddr ./peer/transport/wg:FuzzInitiation ./peer/profile:FuzzHandle ./peer/profile:FuzzParseExp ./peer/presence:FuzzVerify \
	  ./keystore:FuzzParseSecret ./internal/procstat:FuzzParseStatusKiB ./internal/visible:FuzzString ./internal/visible:FuzzRequest ./app/render:FuzzWrap \
	  ./peer:FuzzParseInvite ./peer/localapi:FuzzThreadsJSON ./peer/wire:FuzzBase64Decode ./app/tray:FuzzPixmapDecode \
	  ./peer:FuzzParseGrantRequest ./peer:FuzzParseKeep ./notify:FuzzPreview ./cmd/awp:FuzzParseDuration ./peer/localapi:FuzzResolveKey; do \
	  pkg=$${pkg_target%%:*}; target=$${pkg_target##*:}; \
	  echo "== $$target ($$pkg)"; \
	  $(GO) test -run '^$$' -fuzz "^$$target$$" -fuzztime $(FUZZTIME) $$pkg; \
	done

smoke: deps-test
	AWP_IDLE_SECONDS=$${AWP_IDLE_SECONDS:-5} scripts/app/smoke.sh

# The tray app's idle CPU and RSS (60 s, one idle peer, no window) and
# menu click → window: BENCHMARKS.md "Tray app" (the figures) and
# docs/performance.md "The tray app" (the method).
measure-idle: deps-test
	scripts/app/measure-idle.sh

icons:
	$(GO) generate ./assets

# A Linux package: build/awp-tray-VERSION-linux-ARCH.tar.xz (both programs,
# the launcher, AppStream metainfo, hicolor icons, the systemd user unit,
# the login entry and a Makefile that installs them; README "Installing"),
# and fyne package's own archive, build/AWP.tar.xz. The desktop entries and
# the metainfo are validated (desktop-file-validate, appstreamcli) before
# they are packed.
VERSION = $(shell sed -n 's/^Version = "\(.*\)"/\1/p' FyneApp.toml)
PKG = $(BUILD)/awp-tray-$(VERSION)-linux-$(shell $(GO) env GOARCH)
package: deps-package
	rm -rf $(PKG) $(BUILD)/pkg
	$(GO) build -trimpath -tags release -ldflags "-s -w" -o $(BUILD)/pkg/awp-tray .
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags "-s -w" -o $(BUILD)/pkg/awp ./cmd/awp
	$(GO) run ./scripts/app/pkgtree -root $(PKG) -bin $(BUILD)/pkg
	desktop-file-validate $(PKG)/usr/share/applications/dev.awp.tray.desktop $(PKG)/etc/xdg/autostart/dev.awp.tray.desktop
	appstreamcli validate --no-net $(PKG)/usr/share/metainfo/dev.awp.tray.metainfo.xml
	cp packaging/linux/Makefile $(PKG)/Makefile
	tar -C $(BUILD) -cJf $(PKG).tar.xz $(notdir $(PKG))
	@# fyne package adds one to FyneApp.toml's Build each time: keep the file as it is.
	cp FyneApp.toml $(BUILD)/pkg/FyneApp.toml
	$(GO) run fyne.io/tools/cmd/fyne@v1.7.4 package -os linux -release -executable $(BUILD)/pkg/awp-tray; \
		s=$$?; cp $(BUILD)/pkg/FyneApp.toml FyneApp.toml; exit $$s
	mv AWP.tar.xz $(BUILD)/AWP.tar.xz
	@echo "package: $(PKG).tar.xz and $(BUILD)/AWP.tar.xz"

# awp for linux, darwin and windows (amd64, arm64), go vet for darwin/arm64
# and windows/amd64, and the tray app for windows/amd64 with mingw-w64
# (scripts/cross.sh; it prints what each step costs).
cross: deps-cross
	scripts/cross.sh

# What CI runs (.ci/run): a REDUCED cross set, since the whole of make cross
# (about 35 CPU-minutes with an empty build cache) would take CI past its
# 30 minutes on 2 cores. It builds awp for linux/amd64 (make test compiled
# its packages already), darwin/arm64 and windows/amd64, both vets (each
# sharing its compiled packages with the awp build for its platform) and
# the Windows tray, started first and built beside the rest (its cgo part
# compiles C on one core for minutes: CROSS_TRAY=bg). It leaves out awp for linux/arm64, darwin/amd64 and
# windows/arm64, which differ from the three kept only by GOARCH: our only
# architecture code (peer/wire's amd64 base64) and its fallback are both
# built. make cross builds all six.
CROSS_CI_TARGETS = linux/amd64 darwin/arm64 windows/amd64
cross-ci: deps-cross
	CROSS_TARGETS="$(CROSS_CI_TARGETS)" CROSS_TRAY=bg scripts/cross.sh
deps-cross:
	@scripts/deps.sh cross

clean:
	rm -rf $(BUILD)
