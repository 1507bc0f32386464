# agentd: the two commands people need are `make demo` and `make test`.
SHELL := /bin/bash
export PATH := $(PATH):/opt/swift/usr/bin
BIN := .build/debug
DEMO := $(CURDIR)/run/demo

# The shipped build (bench and deb share it): the Swift runtime linked statically; the linker's
# hardening (full RELRO, -z now), no DT_NEEDED for a library a binary does not use (agentctl
# needs neither libinotifytools nor libsystemd), and _FORTIFY_SOURCE for the C shims.
RELEASE_FLAGS := -c release --static-swift-stdlib --scratch-path .build-static \
	-Xlinker -z -Xlinker relro -Xlinker -z -Xlinker now -Xlinker --as-needed \
	-Xcc -D_FORTIFY_SOURCE=2 -Xcc -O2

.PHONY: deps build demo test bench deb package-test clean

deps:
	@./scripts/install-deps.sh

build: deps
	swift build

## demo: install what is needed, build, and run agentd in the foreground on the example config.
demo: build
	@./scripts/prepare-demo.sh
	@echo
	@echo "agentd is starting in the foreground (Ctrl-C stops it). In another terminal:"
	@echo "  export AGENTD_SOCKET=$(DEMO)/agentd.sock"
	@echo "  $(CURDIR)/$(BIN)/agentctl status"
	@echo "  $(CURDIR)/$(BIN)/agentctl list"
	@echo "  $(CURDIR)/$(BIN)/agentctl check $(DEMO)/etc"
	@echo
	$(BIN)/agentd --config-dir $(DEMO)/etc --state-dir $(DEMO)/state --socket $(DEMO)/agentd.sock

## test: install what is needed, build once, run every test.
## PACKAGE_TEST=1 make test also runs the install test (package-test, needs root, a few minutes).
test: deps
	swift build --build-tests
	swift test --skip-build
	@if [ "$${PACKAGE_TEST:-0}" = 1 ]; then $(MAKE) --no-print-directory package-test; fi

## bench: run the benchmarks and write BENCHMARKS.md (takes a few minutes). They measure the
## shipped configuration: a release build with the Swift runtime linked statically.
bench: deps
	@./scripts/install-deps.sh bench
	swift build $(RELEASE_FLAGS)
	AGENTD_BIN_DIR=$(CURDIR)/.build-static/release python3 bench/run.py

## deb: build packaging/build/agentd_VERSION_ARCH.deb: a release build with the Swift runtime
## linked statically (the same build as bench), packaged with debhelper.
deb: deps
	@./scripts/install-deps.sh packaging
	swift build $(RELEASE_FLAGS)
	@./packaging/build-deb.sh

## package-test: build the .deb, install it into a minimal Debian 12 root (debootstrap, cached in
## packaging/build/cache), run a job through it, purge it and check nothing is left; lintian.
package-test: deb
	@./packaging/package-test.sh

clean:
	rm -rf .build run
