# awp-tray: the commands the README names. Every target installs the Debian
# packages it needs when they are missing (scripts/deps.sh).
SHELL := /bin/bash
export PATH := $(PATH):/usr/local/go/bin
GO ?= go
BUILD := build
DATA ?= $(HOME)/.config/awp
TESTFLAGS ?= -timeout 25m
FUZZTIME ?= 30s

.PHONY: all run run-headless test test-mcp test-long bench bench-attack fuzz package smoke measure-idle icons awp tray deps-run deps-test vet fmt-check clean

all: awp tray

deps-run:
	@scripts/deps.sh run
deps-test:
	@scripts/deps.sh test

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

# Long crash tests: random kill points, at least 20 iterations.
test-long: deps-test awp
	AWP_LONG=1 $(GO) test -timeout 60m -run 'Crash' -v ./cmd/awp/... ./peer/...

bench: awp
	$(GO) run ./cmd/awpbench

# Hostile peers wearing one node down (issue 18): CPU seconds, memory and
# descriptors each attack costs, and what a legitimate peer sees meanwhile
# (BENCHMARKS.md "Under attack: …"). The disk attack needs a tmpfs, so
# root; it is skipped otherwise.
bench-attack:
	$(GO) test -run '^$$' -bench 'Attack' -benchtime 1x -timeout 40m ./peer/

fuzz:
	@set -e; for pkg_target in \
	  ./peer/wire:FuzzReadLine ./peer/wire:FuzzDecode ./peer/wire:FuzzDecodeLoose ./peer/wire:FuzzCanonical ./peer/wire:FuzzChunkDecode \
	  ./peer:FuzzHandshake ./peer/grant:FuzzParseVerify ./peer/grant:FuzzCanonicalFixedPoint ./peer/grant:FuzzGrantID \
	  ./peer/transport:FuzzParseAddr ./peer/transport/wg:FuzzInitiation ./peer/profile:FuzzHandle ./peer/profile:FuzzParseExp ./peer/presence:FuzzVerify \
	  ./keystore:FuzzParseSecret ./internal/visible:FuzzString ./internal/visible:FuzzRequest ./app/render:FuzzWrap; do \
	  pkg=$${pkg_target%%:*}; target=$${pkg_target##*:}; \
	  echo "== $$target ($$pkg)"; \
	  $(GO) test -run '^$$' -fuzz "^$$target$$" -fuzztime $(FUZZTIME) $$pkg; \
	done

smoke: deps-test
	AWP_IDLE_SECONDS=$${AWP_IDLE_SECONDS:-5} scripts/app/smoke.sh

# The tray app's idle CPU and RSS (60 s, one idle peer, no window) and
# menu click → window: BENCHMARKS.md "Tray app".
measure-idle: deps-test
	scripts/app/measure-idle.sh

icons:
	$(GO) generate ./assets

package: deps-run
	$(GO) run fyne.io/tools/cmd/fyne@v1.7.4 package -os linux -release

clean:
	rm -rf $(BUILD)
