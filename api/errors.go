package api

import (
	"context"
	"errors"
	"log/slog"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/pilot-dev/pilot/db"
)

// ErrorBody is the one error shape of the API, for every 4xx and 5xx: statusCode, message, error (the
// status name), and for validation failures the failing fields.
type ErrorBody struct {
	StatusCode int          `json:"statusCode" doc:"HTTP status code"`
	Message    string       `json:"message" doc:"What went wrong, for people"`
	ErrorName  string       `json:"error" doc:"HTTP status name"`
	Errors     []FieldError `json:"errors,omitempty" doc:"Validation failures, one per field"`
	// RetryAfter, when positive, is sent as the Retry-After header (whole seconds, rounded up): how long
	// a refused client should wait.
	RetryAfter time.Duration `json:"-"`
	// cause is what made a 503 (the driver's error, a timeout waiting for a connection): never shown,
	// logged by logUnavailable with the request's context.
	cause error
}

// FieldError is one validation failure.
type FieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

// Error implements error.
func (e *ErrorBody) Error() string { return e.Message }

// GetStatus implements huma.StatusError.
func (e *ErrorBody) GetStatus() int { return e.StatusCode }

// GetHeaders implements huma.HeadersError: a 503, and a refusal that knows its RetryAfter (a 429), say
// when to try again.
func (e *ErrorBody) GetHeaders() http.Header {
	switch {
	case e.RetryAfter > 0:
		return http.Header{"Retry-After": {strconv.FormatInt(int64(math.Ceil(e.RetryAfter.Seconds())), 10)}}
	case e.StatusCode == http.StatusServiceUnavailable:
		return http.Header{"Retry-After": {retryAfter}}
	}
	return nil
}

// ContentType keeps errors in plain JSON (application/json) rather than huma's problem+json, so every
// error has the one shape above.
func (e *ErrorBody) ContentType(string) string { return "application/json" }

// statusName is the `error` field: the HTTP status name, except for 500, which is "Internal Error".
func statusName(code int) string {
	if code == http.StatusInternalServerError {
		return "Internal Error"
	}
	if t := http.StatusText(code); t != "" {
		return t
	}
	return "Error"
}

func newErrorBody(code int, msg string) *ErrorBody {
	return &ErrorBody{StatusCode: code, Message: msg, ErrorName: statusName(code)}
}

// retryAfter is the Retry-After of a 503 (in seconds): a PostgreSQL restart takes a few seconds, and
// the pool reconnects on the next request after it.
const retryAfter = "2"

// unavailableMsg answers a request that failed because something it needs is out of reach (rather
// than the database's classified ErrUnavailable, whose message the store gives).
const unavailableMsg = "service unavailable; try again shortly"

// statusClientClosed answers requests whose client went away (nginx's 499); nobody reads it.
const statusClientClosed = 499

var installErrorsOnce sync.Once

// installErrors replaces huma's error constructor, before any operation is registered (the OpenAPI
// error schema is taken from it then): validation is 400 rather than 422, and a 500 never carries
// internal error text; it is logged instead.
func installErrors(logger *slog.Logger) {
	installErrorsOnce.Do(func() {
		huma.NewError = func(status int, msg string, errs ...error) huma.StatusError {
			return buildError(context.Background(), logger, status, msg, errs...)
		}
		huma.NewErrorWithContext = func(hctx huma.Context, status int, msg string, errs ...error) huma.StatusError {
			ctx := context.Background()
			if hctx != nil {
				ctx = hctx.Context()
			}
			se := buildError(ctx, logger, status, msg, errs...)
			if eb, ok := se.(*ErrorBody); ok && hctx != nil {
				// Errors written here (the guard's, huma's own) carry their headers themselves: huma
				// applies GetHeaders only to errors an operation returns.
				for k, v := range eb.GetHeaders() {
					hctx.SetHeader(k, v[0])
				}
			}
			return se
		}
	})
}

func buildError(ctx context.Context, logger *slog.Logger, status int, msg string, errs ...error) huma.StatusError {
	if status == http.StatusUnprocessableEntity {
		status = http.StatusBadRequest
	}
	if status >= 500 && ctx.Err() != nil && slices.ContainsFunc(errs, func(e error) bool {
		return errors.Is(e,
			ctx.Err())
	}) {
		// The client went away (or its deadline passed) mid-request: nobody reads this answer, and it is
		// no server fault to log as one.
		logger.DebugContext(ctx, "request abandoned by its client", "message", msg)
		return newErrorBody(statusClientClosed, "client closed the request")
	}
	if status >= 500 {
		if body := unavailable(errs...); body != nil {
			return body // logged with its cause by logUnavailable, as it is written
		}
	}
	if status == http.StatusServiceUnavailable {
		// A 503 of its own (fail's, a stream's): its message is for the caller.
		return newErrorBody(status, msg)
	}
	if status >= 500 {
		logger.ErrorContext(ctx, "internal error", "message", msg, "causes", causesOf(errs))
		return newErrorBody(status, "internal server error")
	}
	body := newErrorBody(status, msg)
	var parts []string
	for _, e := range errs {
		if e == nil {
			continue
		}
		var d *huma.ErrorDetail
		if errors.As(e, &d) {
			field := strings.TrimPrefix(strings.TrimPrefix(d.Location, "body."), "body")
			body.Errors = append(body.Errors, FieldError{Field: field, Message: d.Message})
			if field != "" {
				parts = append(parts, field+": "+d.Message)
			} else {
				parts = append(parts, d.Message)
			}
			continue
		}
		body.Errors = append(body.Errors, FieldError{Message: e.Error()})
		parts = append(parts, e.Error())
	}
	if len(parts) > 0 && (msg == "validation failed" || msg == "") {
		body.Message = "validation failed: " + strings.Join(parts, "; ")
	}
	return body
}

func causesOf(errs []error) string {
	var causes []string
	for _, e := range errs {
		if e != nil {
			causes = append(causes, e.Error())
		}
	}
	return strings.Join(causes, "; ")
}

// unavailable is the 503 (with Retry-After, see GetHeaders) for errs when one of them is the database
// out of reach: the store's ErrUnavailable with its message, or a lost or refused connection met
// outside the store's queries; nil otherwise.
func unavailable(errs ...error) *ErrorBody {
	for _, err := range errs {
		var se *db.Error
		switch {
		case errors.As(err, &se) && errors.Is(se.Kind, db.ErrUnavailable):
			body := newErrorBody(http.StatusServiceUnavailable, se.Msg)
			body.cause = err
			return body
		case db.IsUnavailable(err):
			body := newErrorBody(http.StatusServiceUnavailable, unavailableMsg)
			body.cause = err
			return body
		}
	}
	return nil
}

// fail turns a store error into the API's error: the store's refusals keep their message, the
// database out of reach is a 503 with Retry-After, anything unexpected becomes a 500 whose cause is
// logged and never shown.
func fail(err error) error {
	if body := unavailable(err); body != nil {
		return body
	}
	var se *db.Error
	if errors.As(err, &se) {
		return newErrorBody(statusOf(se.Kind), se.Msg)
	}
	for _, kind := range []error{db.ErrNotFound, db.ErrConflict, db.ErrInvalid, db.ErrForbidden} {
		if errors.Is(err, kind) {
			return newErrorBody(statusOf(kind), kind.Error())
		}
	}
	return err // huma answers 500 through NewErrorWithContext, which logs and hides it
}

func statusOf(kind error) int {
	switch {
	case errors.Is(kind, db.ErrNotFound):
		return http.StatusNotFound
	case errors.Is(kind, db.ErrConflict):
		return http.StatusConflict
	case errors.Is(kind, db.ErrForbidden):
		return http.StatusForbidden
	default:
		return http.StatusBadRequest
	}
}

// Shorthands for handler refusals.
func errBadRequest(msg string) error   { return newErrorBody(http.StatusBadRequest, msg) }
func errUnauthorized(msg string) error { return newErrorBody(http.StatusUnauthorized, msg) }
func errForbidden(msg string) error    { return newErrorBody(http.StatusForbidden, msg) }
func errNotFound(msg string) error     { return newErrorBody(http.StatusNotFound, msg) }

// writeError writes the error shape outside huma (router fallbacks, panics, middleware); a 503 says
// when to try again unless the caller already has.
func writeError(w http.ResponseWriter, code int, msg string) {
	if code == http.StatusServiceUnavailable && w.Header().Get("Retry-After") == "" {
		w.Header().Set("Retry-After", retryAfter)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = jsonEncode(w, newErrorBody(code, msg))
}

// Output is the response of an operation that answers a JSON body and nothing else. It is an alias of
// the anonymous struct, so the OpenAPI schema of the response is T's own.
type Output[T any] = struct{ Body T }

// oneOf answers a read or write of one thing: the store's row mapped by f, or the store's error. Use it
// as `return oneOf(projectOut)(s.board.Project(ctx, a.WorkspaceID, a.ProjectID))`.
func oneOf[T, O any](f func(T) O) func(T, error) (*Output[O], error) {
	return func(row T, err error) (*Output[O], error) {
		if err != nil {
			return nil, fail(err)
		}
		return &Output[O]{Body: f(row)}, nil
	}
}

// listOf answers a list read: the store's rows mapped by f, or the store's error. Use it as
// `return listOf(ruleOut)(s.automations.Rules(ctx, id))`.
func listOf[T, O any](f func(T) O) func([]T, error) (*Output[[]O], error) {
	return func(rows []T, err error) (*Output[[]O], error) {
		if err != nil {
			return nil, fail(err)
		}
		out := make([]O, len(rows))
		for i, r := range rows {
			out[i] = f(r)
		}
		return &Output[[]O]{Body: out}, nil
	}
}

// done answers {ok: true} after a store write with nothing else to say, or the store's error. Use it as
// `return done(s.automations.DeleteRule(ctx, projectID, ruleID))`.
func done(err error) (*OKOutput, error) {
	if err != nil {
		return nil, fail(err)
	}
	return okOutput(), nil
}

// logUnavailable is a huma transformer: every answer passes through it as it is written, and a 503
// that the database or a connection out of reach caused is logged at warn with that cause, whether a
// handler returned it (fail) or huma built it (the guard's errors), so an operator sees why.
func logUnavailable(logger *slog.Logger) huma.Transformer {
	return func(hctx huma.Context, _ string, v any) (any, error) {
		if eb, ok := v.(*ErrorBody); ok && eb.cause != nil {
			id := ""
			if op := hctx.Operation(); op != nil {
				id = op.OperationID
			}
			logger.WarnContext(hctx.Context(), "unavailable", "operation", id, "cause", eb.cause.Error())
		}
		return v, nil
	}
}
