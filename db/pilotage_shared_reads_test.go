package db_test

import (
	"context"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db/board"
	"github.com/pilot-dev/pilot/db/pilotage"
)

// TestPortfolioReadsSeeTheCallersOwnWrites: portfolio reads are shared between concurrent callers
// (coalesce), yet a caller that has just created a card always finds it counted, however many others
// read the same workspace at that moment.
func TestPortfolioReadsSeeTheCallersOwnWrites(t *testing.T) {
	b := setup(t)
	ctx := context.Background()
	ws, actor := b.owner.Workspace.ID, b.owner.User.ID
	stop := make(chan struct{})
	var readers sync.WaitGroup
	for range 4 {
		readers.Add(1)
		go func() {
			defer readers.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := b.Pilotage.CockpitPortfolio(ctx, ws, time.Now()); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	var writers sync.WaitGroup
	for w := range 4 {
		writers.Add(1)
		go func() {
			defer writers.Done()
			prj, err := b.Board.CreateProject(ctx, board.NewProject{WorkspaceID: ws, Name: fmt.Sprintf("writer %d", w),
				CreatedBy: actor})
			if err != nil {
				t.Error(err)
				return
			}
			for k := 1; k <= 20; k++ {
				if _, err := b.Board.CreateCard(ctx, board.NewCard{WorkspaceID: ws, ProjectID: prj.ID, ActorID: actor,
					Title: "mine"}); err != nil {
					t.Error(err)
					return
				}
				ps, err := b.Pilotage.CockpitPortfolio(ctx, ws, time.Now())
				if err != nil {
					t.Error(err)
					return
				}
				for _, p := range ps {
					if p.ProjectID == prj.ID && p.CardCount != k {
						t.Errorf("writer %d: after its card %d the portfolio counts %d", w, k, p.CardCount)
					}
				}
			}
		}()
	}
	writers.Wait()
	close(stop)
	readers.Wait()
}

// TestSharedStateReadsAnswerEachCallerItsOwnSelection: concurrent state reads of one workspace share
// their read, and each caller still gets exactly what its profile and intent select, as a lone call does.
func TestSharedStateReadsAnswerEachCallerItsOwnSelection(t *testing.T) {
	b := setup(t)
	ctx := context.Background()
	ws, actor := b.owner.Workspace.ID, b.owner.User.ID
	past := time.Now().Add(-24 * time.Hour)
	for i := range 12 {
		in := pilotage.NewPilotageMission{WorkspaceID: ws, ActorID: actor, Objective: fmt.Sprintf("mission %d", i),
			Status: pilotage.PilotageMissionStatuses[i%4]}
		if in.Status == "blocked" {
			reason := "waiting"
			in.BlockedReason = &reason
		}
		_, err := b.Pilotage.CreateMission(ctx, in)
		require.NoError(t, err)
		_, err = b.Pilotage.CreateTodo(ctx, pilotage.NewPilotageTodo{WorkspaceID: ws, ActorID: actor,
			Label: fmt.Sprintf("todo %d", i), Status: pilotage.PilotageTodoStatuses[i%4], DueDate: &past})
		require.NoError(t, err)
		_, err = b.Pilotage.CreateDecision(ctx, pilotage.NewPilotageDecision{WorkspaceID: ws, ActorID: actor,
			Title: fmt.Sprintf("decision %d", i)})
		require.NoError(t, err)
	}
	now := time.Now()
	type ask struct{ profile, intent string }
	var asks []ask
	want := map[ask]pilotage.PilotageState{}
	for _, profile := range pilotage.PilotageProfiles {
		for _, intent := range append([]string{""}, pilotage.PilotageIntents...) {
			a := ask{profile, intent}
			st, err := b.Pilotage.StateFor(ctx, ws, profile, intent, now)
			require.NoError(t, err)
			asks, want[a] = append(asks, a), st
		}
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 30 {
				a := asks[(g*7+i)%len(asks)]
				st, err := b.Pilotage.StateFor(ctx, ws, a.profile, a.intent, now)
				if err != nil {
					t.Error(err)
					return
				}
				if !reflect.DeepEqual(want[a], st) {
					t.Errorf("profile %q intent %q: a shared read answered another selection", a.profile, a.intent)
					return
				}
			}
		}()
	}
	wg.Wait()
}
