// Package billing creates checkout sessions with a payment provider. The local provider, the default,
// needs no network: it makes a checkout session the self-hosted deployment can show and complete itself.
package billing

import (
	"context"
	"fmt"

	"github.com/google/uuid"
)

// Checkout is a provider's checkout session.
type Checkout struct {
	ExternalID string
	URL        string
	Status     string
}

// Provider creates checkout sessions for organizations.
type Provider interface {
	Name() string
	CreateCheckout(ctx context.Context, orgID, orgSlug string) (Checkout, error)
}

// Local is the built-in provider: it records an open checkout whose URL points at this deployment.
type Local struct {
	PublicURL string
}

// Name implements Provider.
func (Local) Name() string { return "local" }

// CreateCheckout implements Provider.
func (l Local) CreateCheckout(_ context.Context, _ string, orgSlug string) (Checkout, error) {
	id := "cs_local_" + uuid.NewString()
	return Checkout{ExternalID: id, URL: fmt.Sprintf("%s/billing/checkout/%s?org=%s", l.PublicURL, id, orgSlug),
		Status: "open"}, nil
}
