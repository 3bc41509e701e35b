# kscale developer entry points. `make test` is what CI runs.
SHELL := bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := build

GOLANGCI_LINT_VERSION := v2.15.0
GOLANGCI_LINT := go run github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$(GOLANGCI_LINT_VERSION)
BENCHTIME ?= 1x
BENCH ?= .
TEST_TIMEOUT ?= 40m

.PHONY: build test lint bench testbin deps fmt uplot

## build: compile the kscale binary into bin/
build:
	go build -o bin/kscale ./cmd/kscale

## testbin: build the control-plane binaries the tests run against (cached per version)
testbin:
	hack/testbin/build.sh

## deps: install what the tests need on a fresh machine (headless Chromium for report tests)
deps:
	hack/install-test-deps.sh

## test: lint, then every unit and integration test against the real control plane
test: testbin deps lint
	go test -count=1 -timeout $(TEST_TIMEOUT) ./...
	hack/run-scenarios.sh

## lint: golangci-lint with the repository's configuration
lint:
	$(GOLANGCI_LINT) run ./...

## fmt: format the code as lint expects
fmt:
	$(GOLANGCI_LINT) fmt ./...

## bench: every benchmark (targets live here, never in timed tests)
bench: testbin
	go test -run '^$$' -bench '$(BENCH)' -benchmem -benchtime $(BENCHTIME) ./...

## uplot: re-fetch the vendored uPlot (third_party/uplot) with npm and check its checksums
uplot:
	hack/update-uplot.sh
