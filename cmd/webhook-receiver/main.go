// Command webhook-receiver receives Pilot's webhook deliveries and checks their Standard Webhooks
// signature, as a receiver of yours would: the README's webhook example.
//
//	go build -o bin/webhook-receiver ./cmd/webhook-receiver
//	bin/webhook-receiver -addr localhost:9000 -secret whsec_…
//
// A delivery whose webhook-signature verifies, with a timestamp within five minutes, is answered 204 and
// printed; any other request is answered 401. It uses the standard library only.
package main

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

func main() {
	addr := flag.String("addr", "localhost:9000", "listen address")
	secret := flag.String("secret", "", "the webhook's secret (whsec_…), shown when it was created")
	flag.Parse()
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(*secret, "whsec_"))
	if err != nil || len(key) == 0 || !strings.HasPrefix(*secret, "whsec_") {
		fmt.Fprintln(os.Stderr, "webhook-receiver: -secret must be the webhook's whsec_… secret")
		os.Exit(2)
	}
	http.HandleFunc("POST /", func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil {
			http.Error(w, "read body", http.StatusBadRequest)
			return
		}
		if err := verify(key, r.Header, body, time.Now()); err != nil {
			slog.Warn("refused", "webhookId", r.Header.Get("webhook-id"), "error", err)
			http.Error(w, err.Error(), http.StatusUnauthorized)
			return
		}
		slog.Info("verified", "webhookId", r.Header.Get("webhook-id"), "body", string(body))
		w.WriteHeader(http.StatusNoContent)
	})
	slog.Info("listening", "addr", *addr)
	srv := &http.Server{Addr: *addr, ReadHeaderTimeout: 10 * time.Second}
	if err := srv.ListenAndServe(); err != nil {
		slog.Error("listen", "error", err)
		os.Exit(1)
	}
}

// verify checks a delivery the way the Standard Webhooks specification says: webhook-signature holds
// one or more "v1,<base64>" signatures, space-separated, of HMAC-SHA256 keyed with the secret's bytes
// over "<webhook-id>.<webhook-timestamp>.<body>"; one must match, and the timestamp must be recent.
func verify(key []byte, h http.Header, body []byte, now time.Time) error {
	ts, err := strconv.ParseInt(h.Get("webhook-timestamp"), 10, 64)
	if err != nil {
		return errors.New("no webhook-timestamp")
	}
	if now.Sub(time.Unix(ts, 0)).Abs() > 5*time.Minute {
		return errors.New("webhook-timestamp too old or too new: a replay")
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(h.Get("webhook-id") + "." + strconv.FormatInt(ts, 10) + "."))
	mac.Write(body)
	want := "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
	if !slices.ContainsFunc(strings.Fields(h.Get("webhook-signature")), func(s string) bool {
		return hmac.Equal([]byte(s), []byte(want))
	}) {
		return errors.New("no webhook-signature matches")
	}
	return nil
}
