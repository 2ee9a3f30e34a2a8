package api

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertest"
	"github.com/riverqueue/river/rivertype"
	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db/webhook"
	"github.com/pilot-dev/pilot/jobs"
)

func TestWebhooksCRUD(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ann := e.register("ann@example.com")
	base := wsOf(ann) + "/webhooks"

	r := e.do("POST", base, ann.Token, map[string]any{"url": "https://hooks.example.com/pilot",
		"events": []string{"card_created", "comment_added"}, "description": "CI"})
	requireStatus(t, r, http.StatusCreated)
	created := decode[WebhookWithSecretOut](t, r)
	require.True(t, strings.HasPrefix(created.Secret, "whsec_"))
	require.True(t, created.Enabled)
	require.Equal(t, []string{"card_created", "comment_added"}, created.Events)
	one := base + "/" + created.ID

	// The secret is never shown again.
	r = e.do("GET", one, ann.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.NotContains(t, string(r.Body), "whsec_")
	require.NotContains(t, string(r.Body), `"secret"`)
	r = e.do("GET", base, ann.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Len(t, decode[[]WebhookOut](t, r), 1)
	require.NotContains(t, string(r.Body), "whsec_")

	r = e.do("PATCH", one, ann.Token, map[string]any{"events": []string{"*"}, "enabled": false})
	requireStatus(t, r, http.StatusOK)
	upd := decode[WebhookOut](t, r)
	require.Equal(t, []string{"*"}, upd.Events)
	require.False(t, upd.Enabled)

	r = e.do("POST", one+"/rotate-secret", ann.Token, nil)
	requireStatus(t, r, http.StatusOK)
	rotated := decode[WebhookWithSecretOut](t, r)
	require.NotEqual(t, created.Secret, rotated.Secret)
	require.NotNil(t, rotated.PreviousSecretExpiresAt)

	// A ping is a pending delivery with its job; redelivering it while it is pending makes that job
	// available now, and adds none.
	r = e.do("POST", one+"/test", ann.Token, nil)
	requireStatus(t, r, http.StatusAccepted)
	ping := decode[WebhookDeliveryOut](t, r)
	require.Equal(t, "ping", ping.Event)
	require.EqualValues(t, "pending", ping.Status)
	require.True(t, strings.HasPrefix(ping.ID, "msg_"))
	rivertest.RequireInserted(context.Background(), t, riverpgxv5.New(e.pool),
		jobs.WebhookDeliveryArgs{DeliveryID: ping.ID}, &rivertest.RequireInsertedOpts{Queue: jobs.QueueWebhooks})
	r = e.do("POST", one+"/deliveries/"+ping.ID+"/redeliver", ann.Token, nil)
	requireStatus(t, r, http.StatusAccepted)
	require.Equal(t, "pending", decode[WebhookDeliveryOut](t, r).Status)
	rivertest.RequireManyInserted(context.Background(), t, riverpgxv5.New(e.pool), []rivertest.ExpectedJob{
		{Args: jobs.WebhookDeliveryArgs{DeliveryID: ping.ID}, Opts: &rivertest.RequireInsertedOpts{
			Queue: jobs.QueueWebhooks, State: rivertype.JobStateAvailable}}})
	requireStatus(t, e.do("POST", one+"/deliveries/msg_unknown/redeliver", ann.Token, nil), http.StatusNotFound)
	requireStatus(t, e.do("POST", one+"/deliveries/msg_0123456789abcdef0123456789abcdef/redeliver", ann.Token, nil),
		http.StatusNotFound)

	// Deliveries page newest first, the next page in the Link header.
	r = e.do("POST", one+"/test", ann.Token, nil)
	requireStatus(t, r, http.StatusAccepted)
	second := decode[WebhookDeliveryOut](t, r)
	r = e.do("GET", one+"/deliveries?limit=1", ann.Token, nil)
	requireStatus(t, r, http.StatusOK)
	ds := decode[[]WebhookDeliveryOut](t, r)
	require.Len(t, ds, 1)
	require.Equal(t, second.ID, ds[0].ID)
	link := r.Header.Get("Link")
	require.Contains(t, link, `rel="next"`)
	next := link[strings.Index(link, "<")+1 : strings.Index(link, ">")]
	r = e.do("GET", next, ann.Token, nil)
	requireStatus(t, r, http.StatusOK)
	ds = decode[[]WebhookDeliveryOut](t, r)
	require.Len(t, ds, 1)
	require.Equal(t, ping.ID, ds[0].ID)
	require.Empty(t, r.Header.Get("Link"))
	requireStatus(t, e.do("GET", one+"/deliveries?cursor=garbage", ann.Token, nil), http.StatusBadRequest)

	requireStatus(t, e.do("DELETE", one, ann.Token, nil), http.StatusOK)
	requireStatus(t, e.do("GET", one, ann.Token, nil), http.StatusNotFound)
}

func TestWebhooksRefusals(t *testing.T) {
	t.Parallel()
	e := setupWith(t, setupOpts{production: true})
	ann, bob, cy := e.register("ann@example.com"), e.register("bob@example.com"), e.register("cy@example.com")
	e.join(ann, bob, ann.OrgSlug, ann.WsSlug, "member")
	base := wsOf(ann) + "/webhooks"
	body := map[string]any{"url": "https://93.184.215.14/hook", "events": []string{"*"}}

	for _, bad := range []map[string]any{
		{"url": "http://127.0.0.1:9000/", "events": []string{"*"}},
		{"url": "http://169.254.169.254/latest/meta-data/", "events": []string{"*"}},
		{"url": "http://10.0.0.7/", "events": []string{"*"}},
		{"url": "ftp://example.com/", "events": []string{"*"}},
		{"url": "https://93.184.215.14/hook", "events": []string{}},
		{"events": []string{"*"}},
	} {
		requireStatus(t, e.do("POST", base, ann.Token, bad), http.StatusBadRequest)
	}
	requireStatus(t, e.do("POST", base, bob.Token, body), http.StatusForbidden)
	r := e.do("POST", base, ann.Token, body)
	requireStatus(t, r, http.StatusCreated)
	id := decode[WebhookWithSecretOut](t, r).ID
	requireStatus(t, e.do("GET", base, bob.Token, nil), http.StatusForbidden)
	requireStatus(t, e.do("PATCH", base+"/"+id, ann.Token, map[string]any{"url": "http://[::1]/"}), http.StatusBadRequest)

	// Another workspace's webhook is not found from there.
	other := wsOf(cy) + "/webhooks/" + id
	for _, m := range []string{"GET", "PATCH", "DELETE"} {
		requireStatus(t, e.do(m, other, cy.Token, map[string]any{"enabled": false}), http.StatusNotFound)
	}
	for _, p := range []string{"/rotate-secret", "/test"} {
		requireStatus(t, e.do("POST", other+p, cy.Token, nil), http.StatusNotFound)
	}
	requireStatus(t, e.do("GET", other+"/deliveries", cy.Token, nil), http.StatusNotFound)
}

// An event type that names no activity is refused (400, in the error shape, the message listing the valid
// ones) on create and on update, rather than stored as a subscription that never fires; the OpenAPI
// document lists the types as the enum of events' items.
func TestWebhooksRefuseUnknownEventTypes(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ann := e.register("ann@example.com")
	base := wsOf(ann) + "/webhooks"

	r := e.do("POST", base, ann.Token, map[string]any{"url": "https://hooks.example.com/pilot",
		"events": []string{"card_created", "no_such_event"}})
	requireStatus(t, r, http.StatusBadRequest)
	msg := decode[ErrorBody](t, r).Message
	require.Contains(t, msg, "events[1]")
	for _, valid := range webhook.EventTypes {
		require.Contains(t, msg, string(valid))
	}
	r = e.do("GET", base, ann.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Empty(t, decode[[]WebhookOut](t, r), "nothing was created")

	r = e.do("POST", base, ann.Token, map[string]any{"url": "https://hooks.example.com/pilot",
		"events": []string{"comment_added", "card_created", "comment_added"}})
	requireStatus(t, r, http.StatusCreated)
	w := decode[WebhookWithSecretOut](t, r)
	require.Equal(t, []string{"card_created", "comment_added"}, w.Events, "sorted, once each")
	r = e.do("PATCH", base+"/"+w.ID, ann.Token, map[string]any{"events": []string{"Card_Created"}})
	requireStatus(t, r, http.StatusBadRequest)
	require.Contains(t, decode[ErrorBody](t, r).Message, "webhook_disabled")
	r = e.do("GET", base+"/"+w.ID, ann.Token, nil)
	requireStatus(t, r, http.StatusOK)
	require.Equal(t, []string{"card_created", "comment_added"}, decode[WebhookOut](t, r).Events, "unchanged")

	r = e.do("GET", "/api/openapi.json", "", nil)
	requireStatus(t, r, http.StatusOK)
	var spec struct {
		Components struct {
			Schemas map[string]struct {
				Properties map[string]struct {
					Items struct {
						Enum []string `json:"enum"`
					} `json:"items"`
				} `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	require.NoError(t, json.Unmarshal(r.Body, &spec))
	want := make([]string, len(webhook.EventTypes))
	for i, v := range webhook.EventTypes {
		want[i] = string(v)
	}
	require.Contains(t, want, "*")
	require.Contains(t, want, "card_created")
	for _, body := range []string{"CreateWebhookInputBody", "UpdateWebhookInputBody"} {
		require.Equal(t, want, spec.Components.Schemas[body].Properties["events"].Items.Enum, body)
	}
}
