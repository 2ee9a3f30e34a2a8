package main

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"time"
)

// servePprof serves Go's profiler endpoints (/debug/pprof/) on addr until ctx ends, when addr is set
// (PPROF_ADDR). They are on a listener of their own, never on the API's PORT: a CPU profile of the api
// under load (`go tool pprof http://$PPROF_ADDR/debug/pprof/profile?seconds=10`) is how its hot path is
// read.
func servePprof(ctx context.Context, addr string, logger *slog.Logger) error {
	if addr == "" {
		return nil
	}
	ln, err := new(net.ListenConfig).Listen(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			logger.Warn("pprof listener", "error", err)
		}
	}()
	logger.Info("serving profiles", "addr", ln.Addr().String(), "path", "/debug/pprof/")
	return nil
}
