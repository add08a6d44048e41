# PushLedger — the two commands are `make demo` and `make test`; everything else helps them.
SHELL := /bin/bash
.DEFAULT_GOAL := help

.PHONY: help deps build release sdk-android demo test test-unit lint release-notes cut-release bench bench-smoke fuzz \
	db-start db-stop clean

help:
	@echo "make demo      local Postgres, ingest, a simulated mature fleet, the weekly report (Markdown and HTML)"
	@echo "make test      the whole test suite on a throwaway local Postgres (FILTER=Suite: one suite with its services)"
	@echo "make test-unit the unit suites alone: no database, no service, seconds"
	@echo "make lint      swift format lint, no Swift, SQL or shell line over 120 characters (make test runs it first)"
	@echo "make release-notes  what the next release holds; make cut-release VERSION=x.y.z cuts it"
	@echo "               (docs/operations/upgrading.md)"
	@echo "make bench     benchmarks: ingest vs COPY and naive INSERTs, rollups vs a scan (bench/results/)"
	@echo "make bench-smoke  the benchmarks tiny, as make test runs them"
	@echo "make fuzz      schemathesis (PyPI) against docs/openapi.yaml and a real server (not in make test)"
	@echo "make build     debug build; make release for an optimised one"
	@echo "make sdk-android  the Android SDK's core jar (android/core/build/libs/pushledger-android-core.jar), \
	the adapter on the fakes"
	@echo "make db-start  start the project-local Postgres (prints DATABASE_URL); make db-stop stops it"
	@echo "make clean     remove build output and the local databases"

deps:
	@scripts/deps.sh

build: deps
	swift build

release: deps
	swift build -c release

# Java 8 bytecode from Debian's JDK and jars alone; docs/integrations/android.md has the Gradle route.
sdk-android:
	@scripts/deps.sh jdk libandroid-json-java libjetbrains-annotations-java
	@scripts/android.sh build

# The demo serves a link host over local HTTPS with nginx and a CA made with openssl (scripts/link-fixture.sh).
demo:
	@scripts/deps.sh nginx openssl
	@scripts/demo.sh

# Tests also render the HTML report in headless Chromium, lint Prometheus rules with promtool and
# fail over a Patroni cluster (patroni, etcd-server; scripts/patroni.sh), build and test the
# Android SDK's core with Debian's JDK and JUnit 5, test the sender libraries with Debian's Go
# and Node and a Python virtual environment (scripts/senders.sh), and the browser SDK with Node and
# headless Chromium (scripts/web.sh). gdb: a run that hangs prints its threads (scripts/watchdog.sh).
# FILTER=Suite runs the suites whose names match (a swift test --filter pattern) on the same cluster,
# without the Android core's suite, the sender libraries' suites, the browser SDK's suites and the
# benchmark smoke run.
test:
	@scripts/deps.sh chromium prometheus nginx openssl patroni etcd-server jdk junit5 libandroid-json-java \
		libjetbrains-annotations-java golang-go python3-venv python3 nodejs gdb
	@scripts/test.sh $(if $(FILTER),--filter '$(FILTER)')

# The suites of the test targets Package.swift lists under "Unit suites": no Postgres, Chromium,
# nginx or Prometheus.
test-unit: deps
	@scripts/test.sh --unit

lint:
	@scripts/lint.sh

release-notes:
	@scripts/release-notes.sh

cut-release: deps
	@scripts/release.sh $(VERSION)

# Minutes on 2 cores; not part of make test (which runs bench-smoke).
bench:
	@scripts/deps.sh
	@scripts/bench.sh full

bench-smoke:
	@scripts/deps.sh
	@scripts/bench.sh smoke

# Property-based fuzzing of the HTTP API from its OpenAPI document; installs schemathesis in .build/fuzz-venv.
fuzz: deps
	@scripts/fuzz.sh

db-start: deps
	@scripts/db.sh start demo

db-stop:
	@scripts/db.sh stop demo

clean:
	-@scripts/db.sh destroy demo
	-@scripts/db.sh destroy test
	-@scripts/db.sh destroy fuzz
	-@scripts/db.sh destroy fault-outage
	-@scripts/db.sh destroy scale-standby
	-@scripts/db.sh destroy scale-primary
	-@scripts/db.sh destroy capacity
	-@scripts/db.sh destroy android
	-@scripts/patroni.sh destroy failover
	-@scripts/patroni.sh destroy demo
	rm -rf .build .pgdata android/core/build
