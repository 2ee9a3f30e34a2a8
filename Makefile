.DEFAULT_GOAL := help
SHELL := /bin/bash

.PHONY: help
help: ## List the targets
	@grep -hE '^[a-zA-Z/_-]+:.*?## ' $(MAKEFILE_LIST) | awk 'BEGIN {FS = ":.*?## "} \
		{ name[NR] = $$1; doc[NR] = $$2; if (length($$1) > w) w = length($$1) } \
		END { for (i = 1; i <= NR; i++) printf "  %-" w "s  %s\n", name[i], doc[i] }'

.PHONY: run
run: ## Build and run api + worker (starts a private PostgreSQL under .data/ unless DATABASE_URL is set)
	@scripts/run.sh

# VERSION is what `pilot version` prints: git describe in a checkout (a tag, or the commit, with -dirty
# when the tree has changes), else dev; `make build VERSION=1.2.0` overrides it.
VERSION = $(shell git describe --always --dirty 2>/dev/null || echo dev)

.PHONY: build
build: ## Build bin/pilot (its version from git describe)
	go build -ldflags "-X main.version=$(VERSION)" -o bin/pilot ./cmd/pilot

.PHONY: image
image: ## Build the container image pilot:$(VERSION): the static binary FROM scratch, with buildah or podman (no registry)
	@VERSION=$(VERSION) scripts/image.sh

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
lint: ## Run golangci-lint (pinned in tools/go.mod, configured in .golangci.yaml), go vet, the README's package list, Redocly on the OpenAPI document, the web app's type-check (web/api.d.ts fresh, tsc --checkJs) and its operation coverage
	go tool -modfile=tools/go.mod golangci-lint run ./...
	go vet ./...
	@scripts/arch-check.sh
	@scripts/openapi-lint.sh
	@scripts/web-check.sh
	@go test -count=1 -run '^TestOperationsReachedOrExplained$$' ./web/

.PHONY: web/types
web/types: ## Regenerate web/api.d.ts (the web app's API types) from the OpenAPI document, then type-check the app
	@scripts/web-check.sh --write

.PHONY: screenshots
screenshots: ## Run the browser tests and save their screenshots of the web app in docs/screenshots
	@PILOT_SCREENSHOTS=1 scripts/test.sh -run Browser -v ./web/

.PHONY: bench/web
bench/web: ## Web app benchmark in Chromium: a 500-card board interactive after its data arrived (ms)
	@scripts/test.sh -run '^$$' -bench Board500 -benchtime=3x ./web/

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

.PHONY: soak
soak: ## 5 minutes of mixed load on 2 api + 2 workers, SIGKILLing a worker every 30 s and an api once (make test runs 60 s of it)
	@SOAK_DURATION=$${SOAK_DURATION:-5m} scripts/test.sh -run '^TestSoak$$' -v -timeout 30m ./e2e/

.PHONY: fuzz
fuzz: ## Walk every operation of the OpenAPI document with hostile input, 20 rounds (make test runs 1)
	@FUZZ_ROUNDS=$${FUZZ_ROUNDS:-20} scripts/test.sh -run '^TestFuzzEveryOperation$$' -v -timeout 30m ./api/

.PHONY: bench/drafts
bench/drafts: ## Draft benchmark (offline planner, real worker): generate-roadmap to first event and to roadmap ready
	@$(MAKE) --no-print-directory test ARGS='-run ^$$$$ -bench DraftRoadmap -benchtime=1x ./api/'

.PHONY: bench/pipelines
bench/pipelines: ## Pipeline benchmark: a 20-step diamond of notify steps end to end (one run; 100 runs at once)
	@scripts/test.sh -run '^$$' -bench PipelineDiamond -benchtime=1x ./workers/

.PHONY: bench/webhooks
bench/webhooks: ## Webhook benchmark: commit-to-receiver p50/p99, 10,000 events in a burst, a receiver down for 60 s
	@scripts/test.sh -run '^$$' -bench WebhookDelivery -benchtime=1x -timeout 30m ./workers/

.PHONY: bench/search
bench/search: ## Search benchmark: GET WS/search p50/p99 over 100,000 documents and 100,000 cards
	@PILOT_BENCH_SEARCH=1 $(MAKE) --no-print-directory test ARGS='-run ^$$$$ -bench ^BenchmarkSearch$$$$ -benchtime=1x -timeout 30m ./api/'

.PHONY: bench/sse
bench/sse: ## Mission stream benchmarks: event latency p50/p99, memory per idle subscriber and stream
	@$(MAKE) --no-print-directory test ARGS='-run ^$$$$ -bench . ./internal/stream/ ./api/ -benchtime=1x'

.PHONY: bench/feed
bench/feed: ## Event feed benchmarks on one api process: commit-to-client p50/p99 at 1, 100 and 1,000 subscribers; memory per idle feed
	@$(MAKE) --no-print-directory test ARGS='-run ^$$$$ -bench Feed ./api/ -benchtime=1x'

.PHONY: bench/calendar
bench/calendar: ## Calendar feed benchmark: a personal feed of 1,000 dated cards served (bytes, ms) and a poll answered 304
	@$(MAKE) --no-print-directory test ARGS='-run ^$$$$ -bench ^BenchmarkICalendar1000Cards$$$$ -benchtime=20x ./api/'

.PHONY: bench/mcp
bench/mcp: ## MCP benchmarks on a real api process: get_card p50/p99 at 8 warm sessions, 200 sessions held, memory per session
	@$(MAKE) --no-print-directory test ARGS='-run ^$$$$ -bench MCP -benchtime=1x ./e2e/'

.PHONY: bench/pilotage
bench/pilotage: ## Pilotage benchmark: dashboard, portfolio and state p50/p99 at 8 clients on 200 projects and 50,000 cards
	@scripts/test.sh -run '^$$' -bench PilotageReads -benchtime=1x -timeout 30m ./api/

.PHONY: bench/imports
bench/imports: ## Import benchmark: a 5,000-card Trello board imported end to end (seconds, peak Go heap)
	@scripts/test.sh -run '^$$' -bench TrelloImport5000 -benchtime=1x -timeout 30m ./db/imports/

.PHONY: bench/backup
bench/backup: ## Backup benchmark: pilot backup and pilot restore of 100,000 cards (seconds, archive size)
	@scripts/test.sh -run '^$$' -bench Backup100k -benchtime=1x -timeout 30m ./e2e/
