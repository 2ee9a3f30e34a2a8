.DEFAULT_GOAL := help
SHELL := /bin/bash

.PHONY: help
help: ## List the targets
	@grep -hE '^[a-zA-Z/_-]+:.*?## ' $(MAKEFILE_LIST) | awk 'BEGIN {FS = ":.*?## "}; {printf "  %-12s %s\n", $$1, $$2}'

.PHONY: run
run: ## Build and run api + worker (starts a private PostgreSQL under .data/ unless DATABASE_URL is set)
	@scripts/run.sh

.PHONY: build
build: ## Build bin/pilot
	go build -o bin/pilot ./cmd/pilot

.PHONY: test
test: ## Run every test against a throwaway PostgreSQL cluster
	@scripts/test.sh $(ARGS)

.PHONY: generate
generate: ## Regenerate sqlc code from db/queries and db/migrations
	cd tools && go tool sqlc -f ../db/sqlc.yaml generate

.PHONY: verify
verify: ## Fail when generated code is stale or code is not gofmt-clean
	cd tools && go tool sqlc -f ../db/sqlc.yaml diff
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || (gofmt -l $$(git ls-files '*.go'); exit 1)

.PHONY: lint
lint: ## go vet
	go vet ./...

.PHONY: db/reset
db/reset: ## Delete the local development database cluster (.data/dev)
	-scripts/pg.sh stop .data/dev --remove
	rm -rf .data/dev

.PHONY: bench
bench: ## Load benchmarks with wrk against a private PostgreSQL and api (figures, never pass/fail)
	@bench/run.sh

.PHONY: bench/jobs
bench/jobs: ## Job benchmarks: commit-to-pickup latency of a card change's job; CPU of an idle worker
	@scripts/test.sh -run '^$$' -bench PickupLatency -benchtime=1x ./workers/
	@bench/idle.sh

.PHONY: bench/search
bench/search: ## Search benchmark: GET WS/search p50/p99 over 100,000 documents and 100,000 cards
	@PILOT_BENCH_SEARCH=1 $(MAKE) --no-print-directory test ARGS='-run ^$$$$ -bench ^BenchmarkSearch$$$$ -benchtime=1x -timeout 30m ./api/'

.PHONY: bench/sse
bench/sse: ## Mission stream benchmarks: event latency p50/p99, memory per idle subscriber and stream
	@$(MAKE) --no-print-directory test ARGS='-run ^$$$$ -bench . ./internal/stream/ ./api/ -benchtime=1x'
