package tenancy_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db/tenancy"
)

// Roles rank as the guard needs them: each role is at least itself and the roles below it, and an
// unknown or empty role (no membership) ranks below every role.
func TestRolesRank(t *testing.T) {
	t.Parallel()
	require.True(t, tenancy.OrgOwner.AtLeast(tenancy.OrgAdmin))
	require.True(t, tenancy.OrgAdmin.AtLeast(tenancy.OrgAdmin))
	require.False(t, tenancy.OrgMember.AtLeast(tenancy.OrgAdmin))
	require.False(t, tenancy.OrgRole("").AtLeast(tenancy.OrgMember))
	require.True(t, tenancy.WorkspaceAdmin.AtLeast(tenancy.WorkspaceMember))
	require.False(t, tenancy.WorkspaceMember.AtLeast(tenancy.WorkspaceAdmin))
	require.False(t, tenancy.WorkspaceRole("owner").AtLeast(tenancy.WorkspaceMember))
	require.True(t, tenancy.PilotageOwner.AtLeast(tenancy.PilotageReviewer))
	require.True(t, tenancy.PilotageReviewer.AtLeast(tenancy.PilotageReviewer))
	require.False(t, tenancy.PilotageViewer.AtLeast(tenancy.PilotageReviewer))
	require.False(t, tenancy.PilotageRole("").AtLeast(tenancy.PilotageViewer))
}
