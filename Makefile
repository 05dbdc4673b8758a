# miles-ci build and test entry points. `make demo` and `make test` are the two
# commands a fresh machine needs (see README.md).

GO        ?= go
BIN       := bin/miles-ci
SHARED    ?= ../shared
FUZZTIME  ?= 10s
BENCHTIME ?= 1x
# What `miles-ci --version` prints: the commit (and -dirty) of this checkout.
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS   := -X github.com/radixark/miles-ci/internal/cli.Version=$(VERSION)

.PHONY: build test bench fuzz conformance demo clean

build:
	$(GO) build -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/miles-ci

# gofmt check, vet, and every test with the race detector.
test:
	@out=$$(gofmt -l cmd internal); if [ -n "$$out" ]; then echo "not gofmt-ed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) test -race ./...

bench:
	$(GO) test -run '^$$' -bench . -benchmem -benchtime $(BENCHTIME) ./...

# A short run of every fuzz target; FUZZTIME=60s for the acceptance run.
fuzz:
	FUZZTIME=$(FUZZTIME) GO=$(GO) ./.ci/fuzz

conformance: build
	@if [ -f $(SHARED)/conformance/check.py ]; then \
	  python3 $(SHARED)/conformance/check.py --bin $(BIN); \
	else echo "no conformance kit at $(SHARED)/conformance; skipped"; fi

# The main job on the sample repository: list the suites, resolve a PR policy,
# plan and partition a GPU stage, run the CPU and GPU suites.
demo: build
	./testdata/demo.sh $(BIN)

clean:
	rm -rf bin
