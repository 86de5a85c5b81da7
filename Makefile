# Whereabouts — build, test, benchmark and demo entry points.
# `make test` installs what it needs (apt packages, the mosquitto broker) and runs every test.

SHELL := /bin/bash
SWIFT ?= swift
APT_PACKAGES := libmosquitto-dev libbluetooth-dev libsqlite3-dev libyaml-dev libmicrohttpd-dev libssl-dev \
                libpq-dev postgresql nats-server mosquitto mosquitto-clients pkg-config sqlite3 openssl
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: all deps build release test bench demo accuracy accuracy-gate clean radio-test fuzz map-test map-bench ha-test cluster-test

all: build

# Installs only what is missing, so it is fast when everything is there.
deps:
	@missing=""; for p in $(APT_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

# Unit, property and integration tests, a real Home Assistant (ha-test, 11 min; its virtualenv
# cached in ~/.cache/whereabouts), then the live radio path in a VM (about 30 s once
# its image is cached in ~/.cache/whereabouts, under two minutes from nothing).
# Integration tests start real brokers and processes: one at a time, so that timing on a
# 2-core machine stays far from their timeouts.
test: build
	WHEREABOUTS_BIN="$$($(SWIFT) build --show-bin-path)" $(SWIFT) test --skip IntegrationTests
	WHEREABOUTS_BIN="$$($(SWIFT) build --show-bin-path)" $(SWIFT) test --filter IntegrationTests --no-parallel
	WHEREABOUTS_BIN="$$($(SWIFT) build --show-bin-path)" tools/ha-test/run.sh
	tools/radio-test/run.sh
	FUZZ_SECONDS=3 tools/fuzz/run.sh
	$(MAKE) accuracy-gate
	WHEREABOUTS_BIN="$$($(SWIFT) build --show-bin-path)" tools/map-test/run.sh

# libFuzzer on every parser: FUZZ_SECONDS per target (default 600), FUZZ_TARGETS
# to pick some, FUZZ_JOBS=2 to run two at once. Figures go in docs/reliability.md.
FUZZ_SECONDS ?= 600
fuzz: deps
	FUZZ_SECONDS=$(FUZZ_SECONDS) tools/fuzz/run.sh $(FUZZ_TARGETS)

# The speed and memory bars in one go (~8 min): prints a table and rewrites the generated
# part of docs/benchmarks.md. The memory run ages the site under libfaketime.
bench: release
	@dpkg-query -W -f='$${Status}' faketime 2>/dev/null | grep -q "ok installed" || \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq faketime
	"$$($(SWIFT) build -c release --show-bin-path)/whereabouts-bench"

# Every locator on the simulated example sites and the real philotuxo walks: rewrites the
# generated tables of docs/accuracy.md, its pictures in docs/accuracy/, and docs/accuracy.json.
accuracy: release
	mkdir -p docs/accuracy
	"$$($(SWIFT) build -c release --show-bin-path)/whereabouts-lab" accuracy --out docs/accuracy.md --json docs/accuracy.json --pictures docs/accuracy

# The positioning regression gate: every locator on the committed seeds and the real walks,
# each figure against Tests/accuracy-thresholds.json; fails naming each figure that got worse.
# Release build (the engine in a debug build is many times slower).
accuracy-gate: deps
	$(SWIFT) build -c release --product whereabouts-lab
	"$$($(SWIFT) build -c release --show-bin-path)/whereabouts-lab" gate

# The whole system on a simulated two-floor house: broker, aggregator, one edge per node.
demo: build
	WHEREABOUTS_BIN="$$($(SWIFT) build --show-bin-path)" tools/demo.sh

# The live radio path on Debian 12's kernel under qemu with virtual controllers;
# installs qemu itself, caches the guest image in ~/.cache/whereabouts/radio-test.
radio-test: deps
	tools/radio-test/run.sh

# The live map in real headless Chromium against a real broker and aggregator (about 40 s;
# installs Debian's chromium and chromium-driver and a pinned Selenium in ~/.cache/whereabouts).
map-test: build
	WHEREABOUTS_BIN="$$($(SWIFT) build --show-bin-path)" tools/map-test/run.sh

# The map under load: 1,000 devices at 2 state updates/s for 60 s with the page open; frame
# times from the browser's performance timeline and the aggregator's CPU with and without it.
map-bench: release
	WHEREABOUTS_BIN="$$($(SWIFT) build -c release --show-bin-path)" tools/map-test/run.sh --bench

# The hospital set-up in miniature, every part real: a three-node NATS cluster on loopback
# ports, a private PostgreSQL (run as the unprivileged user whereabouts-test), two shards each
# with a standby, the simulated house; then a broker node, an active shard and PostgreSQL fail
# (docs/operations.md, Run a hospital). Also the broker-list, standby and deploy/hospital tests:
# about 4.5 minutes here. They run in `make test`'s integration step too.
cluster-test: build
	WHEREABOUTS_BIN="$$($(SWIFT) build --show-bin-path)" $(SWIFT) test --no-parallel \
	  --filter 'IntegrationTests\.(ClusterTests|StandbyTests|BrokerListTests|HospitalDeployFilesTests)'

# The aggregator against a real Home Assistant 2024.3.3 (MQTT discovery, presence, rooms by
# name, restarts without false transitions); installs it once into ~/.cache/whereabouts.
# About 11 minutes: the simulated house runs in real time.
ha-test: build
	WHEREABOUTS_BIN="$$($(SWIFT) build --show-bin-path)" tools/ha-test/run.sh

clean:
	rm -rf .build
