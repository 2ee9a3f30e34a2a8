package telemetry

import (
	"context"
	"net/http"

	"github.com/google/uuid"
)

// RequestIDHeader is the header a request id is read from and answered in.
const RequestIDHeader = "X-Request-ID"

// requestIDKeyCanonical is RequestIDHeader as net/http keys its header maps: indexing with it spares
// the canonicalisation (an allocation) Get and Set would make for each request.
const requestIDKeyCanonical = "X-Request-Id"

// MaxRequestIDLength bounds a request id taken from a client; a longer one is replaced.
const MaxRequestIDLength = 128

type requestIDKey struct{}

// WithRequestID returns ctx carrying the request id id.
func WithRequestID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, requestIDKey{}, id)
}

// RequestIDFrom is the request id ctx carries ("" when none).
func RequestIDFrom(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}

// ValidRequestID reports whether a client's request id is kept: 1 to MaxRequestIDLength printable
// ASCII characters, no space or control character (it goes into log lines and job metadata as is).
func ValidRequestID(id string) bool {
	if id == "" || len(id) > MaxRequestIDLength {
		return false
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; c <= ' ' || c > '~' {
			return false
		}
	}
	return true
}

// RequestID is the HTTP middleware that gives each request an id: the client's X-Request-ID when it
// is valid (ValidRequestID), else a new random one. The id is answered in the X-Request-ID response
// header and carried by the request's context, where NewLogHandler and JobRequestID find it.
func RequestID(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var id string
		if v := r.Header[requestIDKeyCanonical]; len(v) > 0 {
			id = v[0]
		}
		if !ValidRequestID(id) {
			id = uuid.NewString()
		}
		w.Header()[requestIDKeyCanonical] = []string{id}
		next.ServeHTTP(w, r.WithContext(WithRequestID(r.Context(), id)))
	})
}
