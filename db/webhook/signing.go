package webhook

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
)

// Headers of a delivery, per the Standard Webhooks specification.
const (
	HeaderID        = standardwebhooks.HeaderWebhookID
	HeaderTimestamp = standardwebhooks.HeaderWebhookTimestamp
	HeaderSignature = standardwebhooks.HeaderWebhookSignature
)

// signatures answers the webhook-signature header of body sent as message id at ts: one v1 signature
// per key (the current secret's, then the previous one's while it still signs), space-separated.
func signatures(id string, ts time.Time, body []byte, keys [][]byte) (string, error) {
	sigs := make([]string, 0, len(keys))
	for _, key := range keys {
		wh, err := standardwebhooks.NewWebhookRaw(key)
		if err != nil {
			return "", fmt.Errorf("signing key: %w", err)
		}
		sig, err := wh.Sign(id, ts, body)
		if err != nil {
			return "", fmt.Errorf("sign delivery: %w", err)
		}
		sigs = append(sigs, sig)
	}
	return strings.Join(sigs, " "), nil
}

// setSignedHeaders sets the headers of a signed delivery on h.
func setSignedHeaders(h http.Header, id string, ts time.Time, body []byte, keys [][]byte) error {
	sig, err := signatures(id, ts, body, keys)
	if err != nil {
		return err
	}
	h.Set("Content-Type", "application/json")
	h.Set("User-Agent", "Pilot-Webhooks/1")
	h.Set(HeaderID, id)
	h.Set(HeaderTimestamp, strconv.FormatInt(ts.Unix(), 10))
	if sig != "" {
		h.Set(HeaderSignature, sig)
	}
	return nil
}
