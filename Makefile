# kscale developer entry points. `make test` is what CI runs.
SHELL := bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := build

GOLANGCI_LINT_VERSION := v2.15.0
GOLANGCI_LINT := go run github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$(GOLANGCI_LINT_VERSION)
BENCHTIME ?= 1x
BENCH ?= .
TEST_TIMEOUT ?= 40m

# Build stamp (internal/buildinfo): the release from git describe, the commit
# and the commit's time, so the same commit always builds the same bytes.
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo "(devel)")
REVISION ?= $(shell git rev-parse HEAD 2>/dev/null)$(shell git diff --quiet HEAD 2>/dev/null || echo -dirty)
BUILD_DATE ?= $(shell TZ=UTC git log -1 --format=%cd --date=format-local:%Y-%m-%dT%H:%M:%SZ 2>/dev/null)
BUILDINFO := github.com/kscale/kscale/internal/buildinfo
LDFLAGS := -X '$(BUILDINFO).version=$(VERSION)' -X $(BUILDINFO).revision=$(REVISION) -X $(BUILDINFO).buildDate=$(BUILD_DATE)

.PHONY: build test lint bench testbin deps fmt image fidelity-oracle fidelity vpa-fidelity uplot hpa-oracle hpa-oracle-bin aws-prices snapshot-fidelity

## build: compile the kscale binary into bin/
build:
	go build -trimpath -ldflags "$(LDFLAGS)" -o bin/kscale ./cmd/kscale

## image: the container image, without Docker: OCI layout bin/image and its archive
## bin/kscale-image.tar (linux/amd64 and linux/arm64; one index per upstream image name)
image:
	go run ./hack/image --out bin/image --archive bin/kscale-image.tar \
		--version '$(VERSION)' --revision '$(REVISION)' --build-date '$(BUILD_DATE)'

## testbin: build the control-plane binaries the tests run against, the real kwok
## controller that plays their kubelets, the real Cluster API core controller
## manager of the clusterapi end-to-end tests and the real machine-controller-manager
## controllers (with the test cloud's driver) of the mcm end-to-end tests (each cached per version)
testbin:
	hack/testbin/build.sh
	hack/kwok/build.sh
	hack/capi/build.sh
	hack/mcm/build.sh

## fidelity-oracle: build kube-scheduler's filters as a program for the fidelity test (cached per source hash)
fidelity-oracle:
	hack/fidelity/build.sh

## hpa-oracle-bin: build kube-controller-manager's HPA replica calculator as a program for TestOracle (cached per source hash)
hpa-oracle-bin:
	hack/hpaoracle/build.sh

## hpa-oracle: compare the what-if's HPA replica calculation with kube-controller-manager's on 10^5 random inputs
hpa-oracle: hpa-oracle-bin
	go test -count=1 -run '^TestOracle$$' -v ./internal/whatif/hpa -args -hpa.cases=100000

## fidelity: compare the simulator with kube-scheduler's filters on FIDELITY_PAIRS random pod-node pairs
FIDELITY_PAIRS ?= 1000000
fidelity: fidelity-oracle
	go test -count=1 -timeout 30m -run '^TestFidelity$$' -v ./internal/simulator/fidelity -args -fidelity.random -fidelity.pairs=$(FIDELITY_PAIRS)

## vpa-fidelity: compare the VPA recommender model, the updater's priority and eviction budget and
## the webhook's patch with upstream VPA's own code (tool module hack/vpafidelity) on
## VPA_FIDELITY_STREAMS random streams and as many random pods and budget cases, from VPA_FIDELITY_SEED
VPA_FIDELITY_STREAMS ?= 100000
VPA_FIDELITY_SEED ?= 1
vpa-fidelity:
	cd hack/vpafidelity && go test -count=1 -timeout 3h -run '^Test(Updater|Budget|InPlace)?Fidelity$$' -v . -args -vpafidelity.streams=$(VPA_FIDELITY_STREAMS) -vpafidelity.seed=$(VPA_FIDELITY_SEED)

## snapshot-fidelity: compare one live dry-run loop with kscale simulate on the snapshot of N random
## clusters on the real control plane, from seed SEED (make test runs 40)
N ?= 1000
SEED ?= 1
snapshot-fidelity: testbin
	go test -count=1 -timeout 3h -run '^TestSnapshotFidelity$$' -v ./internal/snapfidelity -args -snapfid.n=$(N) -snapfid.seed=$(SEED)

## deps: install what the tests need on a fresh machine (headless Chromium for report tests)
deps:
	hack/install-test-deps.sh

## test: lint, then every unit and integration test against the real control plane (and
## the Helm chart's, in the tool module hack/helm)
test: testbin fidelity-oracle hpa-oracle-bin deps lint
	go test -count=1 -timeout $(TEST_TIMEOUT) ./...
	cd hack/helm && go test -count=1 -timeout $(TEST_TIMEOUT) ./...
	cd hack/vpafidelity && go test -count=1 -timeout $(TEST_TIMEOUT) ./...
	hack/run-scenarios.sh

## lint: golangci-lint with the repository's configuration
lint:
	$(GOLANGCI_LINT) run --allow-parallel-runners ./...
	cd hack/helm && $(GOLANGCI_LINT) run --allow-parallel-runners ./...
	cd hack/vpafidelity && $(GOLANGCI_LINT) run --allow-parallel-runners ./...
	cd hack/mcm && $(GOLANGCI_LINT) run --allow-parallel-runners ./...

## fmt: format the code as lint expects
fmt:
	$(GOLANGCI_LINT) fmt ./...

## bench: every benchmark (targets live here, never in timed tests)
bench: testbin
	go test -run '^$$' -bench '$(BENCH)' -benchmem -benchtime $(BENCHTIME) ./...

## bench-live: the live-scale benchmark on the real control plane (docs/performance-live.md);
## not part of test. SIZE=200|1k|5k; UPSTREAM=path measures an upstream cluster-autoscaler kwok
## binary instead of bin/kscale; LIVEBENCH_ARGS are harness options (--bursts, --mix, ...);
## EXTRA_ARGS are the autoscaler's flags (default flags otherwise). JSON: bin/livebench-*.json
.PHONY: bench-live upstream-ca
SIZE ?= 1k
UPSTREAM ?=
LIVEBENCH_ARGS ?=
EXTRA_ARGS ?=
bench-live: testbin build
	go run ./hack/livebench --size=$(SIZE) --kscale=bin/kscale $(if $(UPSTREAM),--upstream=$(UPSTREAM)) \
		--json=bin/livebench-$(SIZE)$(if $(UPSTREAM),-upstream).json $(LIVEBENCH_ARGS) -- $(EXTRA_ARGS)

## upstream-ca: build upstream cluster-autoscaler's kwok binary into bin/ from local clones
## (CA_GIT_DIR: kubernetes-sigs/cluster-autoscaler, AUTOSCALER_GIT_DIR: kubernetes/autoscaler)
upstream-ca:
	hack/livebench/build-upstream-ca.sh "$(CA_GIT_DIR)" "$(AUTOSCALER_GIT_DIR)" HEAD bin/cluster-autoscaler-kwok

## proto: regenerate the Go code of the gRPC protocols (externalgrpc cloud provider, gRPC
## expander) with Debian's protoc and the generators pinned in hack/proto/go.mod
.PHONY: proto
proto:
	hack/proto/generate.sh

## aws-prices: regenerate the AWS on-demand price table (internal/cloudprovider/aws/instance_prices.csv)
## from the pinned Karpenter release's generated pricing file (hack/awsprices, via the Go module proxy)
aws-prices:
	go run ./hack/awsprices -out internal/cloudprovider/aws/instance_prices.csv

## uplot: re-fetch the vendored uPlot (third_party/uplot) with npm and check its checksums
uplot:
	hack/update-uplot.sh
