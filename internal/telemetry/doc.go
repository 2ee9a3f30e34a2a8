// Package telemetry is what a Pilot process tells its operators: Prometheus metrics served on a
// listen address of their own (METRICS_ADDR), OpenTelemetry traces exported over OTLP
// (OTEL_EXPORTER_OTLP_ENDPOINT; a no-op otherwise), and request ids carried from an HTTP request to
// its log lines and to the log lines of the jobs it enqueued.
//
// Nothing here is global: each process builds one Metrics (its own Prometheus registry) and one
// Tracing, and cmd/pilot passes them to the api handler and to the River clients.
//
//   - HTTP: RequestID (always on) takes X-Request-ID or makes one; Tracing.HTTP opens a span per
//     request named by chi's route pattern; Metrics.HTTP counts requests by route pattern, method and
//     status and times them (server-sent event streams are counted but kept out of the latency
//     histogram: their duration is a mission's, not the server's).
//   - River: JobRequestID puts the request id into a job's metadata when it is inserted and back into
//     the job's context when it is worked; Metrics.JobMiddleware counts and times jobs by kind, queue
//     and outcome; Tracing.RiverMiddleware is rivercontrib's otelriver.
//   - Collectors read the pgx pool's Stat, River's queues (a read-only query of the store), the
//     mission event relay's and the access cache's counters at scrape time.
//   - NewLogHandler adds the request id (and the trace and span ids) found in a record's context to
//     every log line.
//   - Probes answers /healthz and /readyz from a process's readiness checks; Metrics.Serve serves them
//     beside /metrics (the worker's probes: it has no other listener).
package telemetry
