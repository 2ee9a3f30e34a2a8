package tenancy_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/tenancy"
)

// An organization's admins give it sign-in domains: normalized to lower case, validated as hostnames,
// one organization's each (409 for another's or its own again), none for a personal organization, at
// most MaxOrganizationDomains; removing one answers 404 from another organization.
func TestOrganizationDomains(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	acme, err := e.engine.CreateOrganization(ctx, e.owner.User.ID, "Acme", "acme")
	require.NoError(t, err)
	other, err := e.engine.CreateOrganization(ctx, e.owner.User.ID, "Other", "other")
	require.NoError(t, err)

	d, err := e.engine.AddOrganizationDomain(ctx, acme.ID, e.owner.User.ID, "  Example.COM ")
	require.NoError(t, err)
	require.Equal(t, "example.com", d.Domain)
	require.Equal(t, acme.ID, d.OrganizationID)
	require.Equal(t, &e.owner.User.ID, d.CreatedBy)

	for _, bad := range []string{"", "com", "exa mple.com", "-x.com", "x..com", "a@b.com", "http://x.com", "x.com."} {
		_, err := e.engine.AddOrganizationDomain(ctx, acme.ID, e.owner.User.ID, bad)
		require.ErrorIs(t, err, db.ErrInvalid, "%q", bad)
	}
	_, err = e.engine.AddOrganizationDomain(ctx, acme.ID, e.owner.User.ID, "example.com")
	require.ErrorIs(t, err, db.ErrConflict, "its own again")
	require.ErrorContains(t, err, "already a sign-in domain of this organization")
	_, err = e.engine.AddOrganizationDomain(ctx, other.ID, e.owner.User.ID, "EXAMPLE.com")
	require.ErrorIs(t, err, db.ErrConflict, "another organization's")
	require.ErrorContains(t, err, "another organization")
	_, err = e.engine.AddOrganizationDomain(ctx, e.owner.Organization.ID, e.owner.User.ID, "personal.test")
	require.ErrorIs(t, err, db.ErrConflict, "a personal organization")

	list, err := e.engine.OrganizationDomains(ctx, acme.ID)
	require.NoError(t, err)
	require.Equal(t, []db.OrganizationDomain{d}, list)

	require.ErrorIs(t, e.engine.RemoveOrganizationDomain(ctx, other.ID, d.ID), db.ErrNotFound, "another organization's")
	require.NoError(t, e.engine.RemoveOrganizationDomain(ctx, acme.ID, d.ID))
	require.ErrorIs(t, e.engine.RemoveOrganizationDomain(ctx, acme.ID, d.ID), db.ErrNotFound)
	// Free again: another organization may take it.
	_, err = e.engine.AddOrganizationDomain(ctx, other.ID, e.owner.User.ID, "example.com")
	require.NoError(t, err)

	for i := range tenancy.MaxOrganizationDomains {
		_, err := e.engine.AddOrganizationDomain(ctx, acme.ID, "", fmt.Sprintf("d%d.example.org", i))
		require.NoError(t, err)
	}
	_, err = e.engine.AddOrganizationDomain(ctx, acme.ID, "", "one-more.example.org")
	require.ErrorIs(t, err, db.ErrConflict)

	// Deleting the organization frees its domains.
	require.NoError(t, e.engine.DeleteOrganization(ctx, other.ID))
	require.Zero(t, e.Count(t, `SELECT count(*) FROM organization_domains WHERE domain = 'example.com'`))
}
