package db_test

import (
	"testing"

	"github.com/pilot-dev/pilot/db/identity"
	"github.com/pilot-dev/pilot/internal/testfactory"
)

// testBundle is one test's store and engines on a fresh database (testfactory's bundle: the pool, an
// insert-only River client as the api process has) and a registered user with a project.
type testBundle struct {
	testfactory.Bundle
	owner identity.Registration
	// project is the owner's project Launch, with its columns' ids.
	project testfactory.Project
}

func setup(t *testing.T) *testBundle {
	t.Helper()
	b := &testBundle{Bundle: *testfactory.Store(t)}
	b.owner = testfactory.User(t, b.Engines, nil)
	b.project = testfactory.NewProject(t, b.Engines, b.owner, nil)
	return b
}
