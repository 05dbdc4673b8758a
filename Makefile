# miles-ci build and test entry points. `make demo` and `make test` are the two
# commands a fresh machine needs (see README.md).

GO        ?= go
BIN       := bin/miles-ci
SHARED    ?= ../shared
FUZZTIME  ?= 10s
BENCHTIME ?= 1x
# What `miles-ci --version` prints: the version (a release tag, or by
# default `git describe` of this checkout) and the commit (-dirty when the
# tracked files differ from it).
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT    ?= $(shell c=$$(git rev-parse HEAD 2>/dev/null) && { git diff --quiet HEAD -- 2>/dev/null || c=$$c-dirty; } && echo $$c)
# make dist: where the archives go, and for which platforms (GOOS/GOARCH).
DIST      ?= dist
PLATFORMS ?= linux/amd64 linux/arm64
# The package whose Version and Commit the builds stamp.
STAMPED   := github.com/radixark/miles-ci/internal/cli
# The recipes read these from their environment ("$$VERSION"): a value is
# never pasted into a shell line, where a quote in a tag name would end it.
build dist: export VERSION := $(VERSION)
build dist: export COMMIT := $(COMMIT)
dist: export GO := $(GO)
dist: export DIST := $(DIST)
dist: export PLATFORMS := $(PLATFORMS)
dist: export STAMPED := $(STAMPED)

.PHONY: build dist test bench fuzz conformance demo clean

build:
	$(GO) build -ldflags "-X $(STAMPED).Version=$$VERSION -X $(STAMPED).Commit=$$COMMIT" -o $(BIN) ./cmd/miles-ci

# Static, reproducible release archives and their SHA256SUMS (see .ci/dist).
dist:
	./.ci/dist

# gofmt check, vet, and every test with the race detector. The inner loop,
# `go test -short ./...`, leaves out the heaviest cases (testutil.Short:
# Miles' pytest after each migrate step, runs that wait out a bound); this
# runs them all, and MILES_CI_STRICT=1 makes -short a failure.
test:
	@out=$$(gofmt -l cmd internal); if [ -n "$$out" ]; then echo "not gofmt-ed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) test -race ./...

bench:
	$(GO) test -run '^$$' -bench . -benchmem -benchtime $(BENCHTIME) ./...

# A short run of every fuzz target; FUZZTIME=60s for the acceptance run.
fuzz:
	FUZZTIME=$(FUZZTIME) GO=$(GO) ./.ci/fuzz

# The kit's cases are runs outside a GitHub Actions job (the Python had no
# GPU preflight); inside our own CI job the runner's GITHUB_RUN_ID would make
# its GPU cases jobs on a host with no GPU tool (exit 75), so it is unset.
conformance: build
	@if [ -f $(SHARED)/conformance/check.py ]; then \
	  env -u GITHUB_RUN_ID python3 $(SHARED)/conformance/check.py --bin $(BIN); \
	else echo "no conformance kit at $(SHARED)/conformance; skipped"; fi

# The main job on the sample repository: list the suites, resolve a PR policy,
# plan and partition a GPU stage, run the CPU and GPU suites.
demo: build
	./testdata/demo.sh $(BIN)

clean:
	rm -rf bin dist
