package telemetry

import (
	"context"
	"encoding/json"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// requestIDMetadataKey is the key of the request id in a job's metadata.
const requestIDMetadataKey = "requestId"

// JobRequestID carries a request id from the context a job is inserted in to the context it is worked
// in. As a rivertype.JobInsertMiddleware (on every client that inserts: the api's insert-only client
// and the worker's) it writes the inserting context's request id into each job's metadata; as a
// rivertype.WorkerMiddleware it puts it back into the job's context, so the job's log lines carry
// it, and so do the jobs that job enqueues.
type JobRequestID struct {
	river.MiddlewareDefaults
}

// InsertMany implements rivertype.JobInsertMiddleware.
func (*JobRequestID) InsertMany(ctx context.Context, manyParams []*rivertype.JobInsertParams,
	doInner func(context.Context) ([]*rivertype.JobInsertResult, error)) ([]*rivertype.JobInsertResult, error) {
	if id := RequestIDFrom(ctx); id != "" {
		for _, p := range manyParams {
			if md, err := setMetadata(p.Metadata, requestIDMetadataKey, id); err == nil {
				p.Metadata = md
			}
		}
	}
	return doInner(ctx)
}

// Work implements rivertype.WorkerMiddleware.
func (*JobRequestID) Work(ctx context.Context, job *rivertype.JobRow, doInner func(context.Context) error) error {
	if id := jobRequestID(job.Metadata); id != "" {
		ctx = WithRequestID(ctx, id)
	}
	return doInner(ctx)
}

// setMetadata sets key to value in a job's metadata (a JSON object, empty when nil), keeping every
// other key.
func setMetadata(metadata []byte, key, value string) ([]byte, error) {
	fields := map[string]json.RawMessage{}
	if len(metadata) > 0 {
		if err := json.Unmarshal(metadata, &fields); err != nil {
			return nil, err
		}
	}
	v, err := json.Marshal(value)
	if err != nil {
		return nil, err
	}
	fields[key] = v
	return json.Marshal(fields)
}

func jobRequestID(metadata []byte) string {
	if len(metadata) == 0 {
		return ""
	}
	var md struct {
		RequestID string `json:"requestId"`
	}
	if json.Unmarshal(metadata, &md) != nil || !ValidRequestID(md.RequestID) {
		return ""
	}
	return md.RequestID
}

// RiverMiddleware lists the middleware of a River client, for river.Config.Middleware: job metrics
// (when m is not nil; they only act where jobs are worked), request ids, then traces (when t is not
// nil). Give the same list to the api's insert-only client and to the worker's client, so that a job
// a worker enqueues keeps the request id of the job that caused it.
func RiverMiddleware(m *Metrics, t *Tracing) []rivertype.Middleware {
	var mw []rivertype.Middleware
	if m != nil {
		mw = append(mw, m.JobMiddleware())
	}
	mw = append(mw, &JobRequestID{})
	return append(mw, t.RiverMiddleware()...)
}
