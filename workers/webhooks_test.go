package workers

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db/webhook"
	"github.com/pilot-dev/pilot/internal/testfactory"
	"github.com/pilot-dev/pilot/jobs"
)

func TestWebhookDeliveryWorkerSendsACardCreate(t *testing.T) {
	t.Parallel()
	b := setup(t)
	tm := testfactory.NewTeam(t, b.Store)
	var got atomic.Int32
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		if r.Header.Get(webhook.HeaderSignature) != "" && r.Header.Get(webhook.HeaderID) != "" {
			got.Add(1)
		}
	}))
	t.Cleanup(rcv.Close)
	_, err := b.deps.webhooks.Create(context.Background(), tm.Owner.Workspace.ID, tm.Owner.User.ID,
		webhook.Fields{URL: rcv.URL, Events: []string{"card_created"}, Enabled: true})
	require.NoError(t, err)

	testfactory.Card(t, b.Store, tm.Project, nil)
	require.Equal(t, 1, b.drain(t, jobs.WebhookDeliveryArgs{}.Kind()))
	require.EqualValues(t, 1, got.Load())
	require.Equal(t, 1, b.Count(t, `SELECT count(*) FROM webhook_deliveries WHERE status = 'succeeded'`))

	// The same job worked again sends nothing more.
	workNew(t, b, &WebhookDeliveryWorker{deps: b.deps}, jobs.WebhookDeliveryArgs{DeliveryID: testfactoryDeliveryID(t, b)}, nil)
	require.EqualValues(t, 1, got.Load())
}

func testfactoryDeliveryID(t *testing.T, b *testBundle) string {
	t.Helper()
	var id string
	require.NoError(t, b.Pool.QueryRow(context.Background(), `SELECT id FROM webhook_deliveries`).Scan(&id))
	return id
}
