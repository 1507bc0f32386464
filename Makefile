# agentd: the two commands people need are `make demo` and `make test`.
SHELL := /bin/bash
export PATH := $(PATH):/opt/swift/usr/bin
BIN := .build/debug
DEMO := $(CURDIR)/run/demo

.PHONY: deps build demo test bench clean

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
test: deps
	swift build --build-tests
	swift test --skip-build

## bench: run the benchmarks and write BENCHMARKS.md (takes a few minutes). They measure the
## shipped configuration: a release build with the Swift runtime linked statically.
bench: deps
	@./scripts/install-deps.sh bench
	swift build -c release --static-swift-stdlib --scratch-path .build-static
	AGENTD_BIN_DIR=$(CURDIR)/.build-static/release python3 bench/run.py

clean:
	rm -rf .build run
