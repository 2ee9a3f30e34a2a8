package api

import (
	"context"
	"net/http"

	"github.com/go-chi/httprate"
)

// overLimit counts one attempt for key and reports whether it is past the limiter's rate. httprate's
// OnLimit wants a request and writer only for headers and context, which a JSON operation answers
// itself, so both are stand-ins here.
func (s *Server) overLimit(ctx context.Context, l *httprate.RateLimiter, key string) bool {
	r, _ := http.NewRequestWithContext(ctx, http.MethodPost, "/", http.NoBody)
	return l.OnLimit(discardWriter{}, r, key)
}

type discardWriter struct{}

func (discardWriter) Header() http.Header         { return http.Header{} }
func (discardWriter) Write(b []byte) (int, error) { return len(b), nil }
func (discardWriter) WriteHeader(int)             {}
