# agentd: the two commands people need are `make demo` and `make test`.
SHELL := /bin/bash
export PATH := $(PATH):/opt/swift/usr/bin
BIN := .build/debug
DEMO := $(CURDIR)/run/demo

# The shipped build (bench and deb share it): the Swift runtime linked statically; the linker's
# hardening (full RELRO, -z now), no DT_NEEDED for a library a binary does not use (agentctl
# needs neither libinotifytools nor libsystemd), and _FORTIFY_SOURCE for the C shims.
# Resident memory (issue 17, BENCHMARKS.md): lld with packed relative relocations (DT_RELR: the
# 1 MB .rela.dyn the loader read at every start becomes 8 KB), no symbol table exported from the
# executables (nothing looks their symbols up), a section per function, and the functions that
# agentd runs from start-up to idle laid out together (packaging/agentd.order, `make order-file`)
# instead of spread over 10 MB of text. libstdc++ (the Swift runtime's) linked statically: the
# Swift driver asks for -lstdc++, which finds the archive first in STATIC_CXX_DIR (a directory
# holding only a link to gcc's libstdc++.a), so the few functions used are copied in rather than
# the whole shared library mapped and its symbol tables paged in (about 1 MB resident); and with
# it GCC's unwinder (-static-libgcc: libgcc_eh.a instead of libgcc_s.so). No RUNPATH ($ORIGIN,
# which SwiftPM adds for executables): with the runtime linked in there is nothing to find beside
# the binary, and the loader looked for libm and libc in 30 places beside it first at every
# `agentctl` (--disable-local-rpath: `agentctl --version` 1.61 against 1.79 ms here).
STATIC_CXX_DIR := $(CURDIR)/.build-static/static-libstdc++
MEMORY_FLAGS := -Xswiftc -use-ld=lld -Xswiftc -Xfrontend -Xswiftc -function-sections \
	-Xlinker -z -Xlinker pack-relative-relocs -Xlinker --no-export-dynamic \
	-Xlinker --symbol-ordering-file=$(CURDIR)/packaging/agentd.order -Xlinker --no-warn-symbol-ordering \
	-Xlinker -L$(STATIC_CXX_DIR) -Xswiftc -Xclang-linker -Xswiftc -static-libgcc
RELEASE_FLAGS := -c release --static-swift-stdlib --disable-local-rpath --scratch-path .build-static \
	-Xlinker -z -Xlinker relro -Xlinker -z -Xlinker now -Xlinker --as-needed \
	-Xcc -D_FORTIFY_SOURCE=2 -Xcc -O2 $(MEMORY_FLAGS)

.PHONY: help static-libstdc++ deps build demo test bench bench-peers order-file deb package-test package-test-clean convert-compare clean fuzz fuzz-build sanitize sanitize-address sanitize-thread

## help: list the targets and what each does.
help:
	@awk '/^## [a-z-]+: / { name = $$2; sub(/:$$/, "", name); text = substr($$0, length($$2) + 5); open = 1 } \
	     /^## / && !/^## [a-z-]+: / && open { text = text " " substr($$0, 4) } \
	     !/^## / && open { sub(/\. .*/, ".", text); printf "  make %-19s %s\n", name, text; open = 0 }' $(MAKEFILE_LIST)

deps:
	@./scripts/install-deps.sh

# The directory MEMORY_FLAGS points the linker at: libstdc++.a alone (packaging/static-libstdc++.sh).
# SwiftPM does not relink when only linker flags change: a release binary still linked against
# libstdc++.so or libgcc_s.so (built before these flags) is removed so that the build relinks it.
static-libstdc++:
	@./packaging/static-libstdc++.sh $(STATIC_CXX_DIR)
	@for b in agentd agentctl agentd-transfer; do \
	    f=.build-static/release/$$b; \
	    if [ -f "$$f" ] && readelf -d "$$f" | grep -q 'NEEDED.*\[\(libstdc++\|libgcc_s\)'; then \
	        echo "static-libstdc++: $$f was linked before libstdc++ was linked in: relinking it"; rm -f "$$f"; \
	    fi; \
	done

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

## test: install what is needed, build once, run every test; list any test the machine skipped.
## PACKAGE_TEST=1 make test also runs the install test (package-test, needs root, a few minutes).
test: deps
	swift build --build-tests
	./scripts/run-tests.sh
	@if [ "$${PACKAGE_TEST:-0}" = 1 ]; then $(MAKE) --no-print-directory package-test; fi

## bench: run the benchmarks and write BENCHMARKS.md (takes a few minutes). They measure the
## shipped configuration: a release build with the Swift runtime linked statically.
bench: deps static-libstdc++
	@./scripts/install-deps.sh bench
	swift build $(RELEASE_FLAGS)
	AGENTD_BIN_DIR=$(CURDIR)/.build-static/release python3 bench/run.py

## order-file: (valgrind) regenerate packaging/agentd.order. It profiles which functions the shipped agentd runs from start-up to idle
## (and the .bss it writes, the .rodata it reads),
## then through launches and a reload, and write them to packaging/agentd.order, which the
## release link lays out first. Re-run it when start-up code changes (bench/order_file.py).
order-file: deps static-libstdc++
	@./scripts/install-deps.sh order
	swift build $(RELEASE_FLAGS)
	python3 bench/order_file.py $(RELEASE_FLAGS)

## deb: build packaging/build/agentd_VERSION_ARCH.deb. It is a release build with the Swift runtime
## linked statically (the same build as bench), packaged with debhelper.
deb: deps static-libstdc++
	@./scripts/install-deps.sh packaging
	swift build $(RELEASE_FLAGS)
	@./packaging/build-deb.sh

## package-test: (root) install the .deb in a Debian 12 root and boot it. It builds the .deb, installs it into a minimal Debian 12 root (debootstrap, cached as
## one tar file in $(PACKAGE_TEST_CACHE)), runs a job through it, boot it, purge it and check
## nothing is left; lintian; the sizes docs/packaging.md states. The unpacked root is removed after.
PACKAGE_TEST_CACHE := $(or $(AGENTD_TEST_CACHE),/var/cache/agentd-package-test)
package-test: deb
	@AGENTD_TEST_CACHE=$(PACKAGE_TEST_CACHE) ./packaging/package-test.sh

## convert-compare: (root, network) run a converted Debian 12 machine beside the original. It installs
## 18 packages that ship timers and cron jobs into package-test's root, converts them with
## agentctl convert --system, runs every job once under systemd/cron and once under agentd, and
## prints the table (packaging/convert-compare.sh; about 20 minutes, anacron's delays).
convert-compare: deb
	@./packaging/convert-compare.sh

## package-test-clean: remove package-test's cache (the Debian 12 root, 225 MB) and its work directories.
package-test-clean:
	@if awk '{ print $$5 }' /proc/self/mountinfo | grep -q '^$(CURDIR)/packaging/build/\(package-test\|bench-peers\)/'; then \
		echo "package-test-clean: something is still mounted below packaging/build; unmount it first" >&2; exit 1; fi
	rm -rf --one-file-system $(PACKAGE_TEST_CACHE) packaging/build/package-test packaging/build/bench-peers packaging/build/cache

## bench-peers: (root) measure agentd beside systemd and cron. It boots the package in the cached Debian 12 root with systemd-nspawn and measures
## agentd beside systemd (transient units, systemd-run --wait, daemon-reload) and cron; writes the
## "Beside systemd and cron" section of BENCHMARKS.md (bench/peers.py; a few minutes).
bench-peers: deb
	@./scripts/install-deps.sh bench
	AGENTD_TEST_CACHE=$(PACKAGE_TEST_CACHE) python3 bench/peers.py

## fuzz: build and run the libFuzzer targets, FUZZ_SECONDS each. The targets are in Fuzz/Package.swift, its own package; each runs for
## FUZZ_SECONDS (default 60). New corpus entries go to $(FUZZ_CACHE)/TARGET, reproducers of a
## crash or broken invariant to $(FUZZ_CACHE)/artifacts: copy one to Fuzz/regressions/TARGET/
## and it becomes a test in the normal suite (FuzzRegressionTests). FUZZ_TARGETS= picks some.
FUZZ_SECONDS ?= 60
FUZZ_CACHE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/agentd-fuzz
FUZZ_TARGETS ?= config exec-line time-span calendar directive uevent netlink control
FUZZ_BIN := Fuzz/.build/release
fuzz-build:
	cd Fuzz && swift build -c release -Xswiftc -sanitize=fuzzer,address
fuzz: fuzz-build
	@mkdir -p $(FUZZ_CACHE)/artifacts
	@set -e; for t in $(FUZZ_TARGETS); do \
		mkdir -p $(FUZZ_CACHE)/$$t; dict=; \
		if [ -f Fuzz/dict/$$t.dict ]; then dict=-dict=Fuzz/dict/$$t.dict; fi; \
		echo "== fuzz-$$t for $(FUZZ_SECONDS) s"; \
		SWIFT_BACKTRACE=enable=no $(FUZZ_BIN)/fuzz-$$t $$dict -max_total_time=$(FUZZ_SECONDS) \
			-print_final_stats=1 -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
			-artifact_prefix=$(FUZZ_CACHE)/artifacts/$$t- $(FUZZ_CACHE)/$$t Fuzz/corpus/$$t 2>&1 \
			| grep -E '^(stat::|#[0-9]+[[:space:]]+(DONE|INITED)|==|SUMMARY|artifact_prefix|Test unit|.*Fatal error)' ; \
		if [ "$${PIPESTATUS[0]}" != 0 ]; then echo "fuzz-$$t failed: reproducer in $(FUZZ_CACHE)/artifacts"; exit 1; fi; \
	done

## sanitize: the suite under ASan+UBSan, then TSan. It is built and run under AddressSanitizer (UBSan for the C shims) in
## .build-asan, then under ThreadSanitizer in .build-tsan. SANITIZE_FILTER= narrows the test run.
## Skipped there: the tests that bound the agent's memory or hold a burst against real deadlines,
## which measure the sanitizer's own cost (shadow memory, 2-10x slower code), not agentd's.
SANITIZE_SKIP := MemoryPerJobTests|aGigabyteOfOutputIsReadWithoutGrowingTheAgent|aThousandIdleConnectionsAndTwoHundredNonReadersDoNotLockOutRoot|aSubscriberThatNeverReadsIsDroppedWithOneOverflowEventAndCostsNoMemory|swappingABigDirectoryRemovesNothing
## Under TSan also the integration tests: a TSan-built agentd dies in TSan's own clone()
## interceptor (CHECK failed in ForkAfter) when it spawns a plugin, before any test can look.
## Run through scripts/run-tests.sh, as `make test` is, so that a skipped test is listed there too.
SANITIZE_TEST = ./scripts/run-tests.sh --skip '$(SANITIZE_SKIP)$(1)' $(if $(SANITIZE_FILTER),--filter '$(SANITIZE_FILTER)')
sanitize: sanitize-address sanitize-thread
sanitize-address: deps
	swift build --build-tests --scratch-path .build-asan -Xswiftc -sanitize=address \
		-Xcc -fsanitize=address,undefined -Xcc -fno-sanitize-recover=undefined
	ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		$(call SANITIZE_TEST,) --scratch-path .build-asan
sanitize-thread: deps
	swift build --build-tests --scratch-path .build-tsan -Xswiftc -sanitize=thread -Xcc -fsanitize=thread
	TSAN_OPTIONS=halt_on_error=1:suppressions=$(CURDIR)/Tests/Sanitizers/tsan-suppressions.txt \
		$(call SANITIZE_TEST,) --scratch-path .build-tsan

clean:
	rm -rf .build run .build-asan .build-tsan Fuzz/.build
