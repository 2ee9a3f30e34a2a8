package coalesce

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// blockingRead is a read that counts its runs and waits for a release; started says each run began.
type blockingRead struct {
	runs    atomic.Int64
	started chan int64
	release chan error
}

func newBlockingRead() *blockingRead {
	return &blockingRead{started: make(chan int64, 10), release: make(chan error)}
}

// fn answers its run number, or the error released, or its context's error (a read must never see its
// starter's cancellation).
func (r *blockingRead) fn(ctx context.Context) (int64, error) {
	n := r.runs.Add(1)
	r.started <- n
	if err := <-r.release; err != nil {
		return n, err
	}
	return n, ctx.Err()
}

func waitQueued(t *testing.T, g *Group[string, int64], key string, n int) {
	t.Helper()
	require.Eventually(t, func() bool { return g.queued(key) == n }, 10*time.Second, time.Millisecond)
}

type result struct {
	v      int64
	shared bool
	err    error
}

func do(ctx context.Context, g *Group[string, int64], key string, r *blockingRead) chan result {
	out := make(chan result, 1)
	go func() {
		v, shared, err := g.Do(ctx, key, r.fn)
		out <- result{v, shared, err}
	}()
	return out
}

// TestCallersArrivingDuringAReadGetTheNextOne: a caller never gets a read that started before it
// arrived; the callers that arrived during one read share the next.
func TestCallersArrivingDuringAReadGetTheNextOne(t *testing.T) {
	var g Group[string, int64]
	r := newBlockingRead()
	ctx := context.Background()
	first := do(ctx, &g, "ws", r)
	require.Equal(t, int64(1), <-r.started)

	var later []chan result
	for i := range 5 {
		later = append(later, do(ctx, &g, "ws", r))
		waitQueued(t, &g, "ws", i+1)
	}
	r.release <- nil
	require.Equal(t, result{v: 1}, <-first)
	require.Equal(t, int64(2), <-r.started, "the queued callers' read starts when the first ends")
	r.release <- nil
	shared := 0
	for _, c := range later {
		res := <-c
		require.NoError(t, res.err)
		require.Equal(t, int64(2), res.v, "every caller that arrived during read 1 gets read 2")
		if res.shared {
			shared++
		}
	}
	require.Equal(t, 4, shared, "one caller started read 2, four shared it")
	require.Equal(t, int64(2), r.runs.Load())

	// Nothing is kept: the next caller reads again.
	again := do(ctx, &g, "ws", r)
	require.Equal(t, int64(3), <-r.started)
	r.release <- nil
	require.Equal(t, int64(3), (<-again).v)
}

func TestKeysReadApart(t *testing.T) {
	var g Group[string, int64]
	r := newBlockingRead()
	a, b := do(context.Background(), &g, "a", r), do(context.Background(), &g, "b", r)
	<-r.started
	<-r.started
	r.release <- nil
	r.release <- nil
	require.ElementsMatch(t, []int64{1, 2}, []int64{(<-a).v, (<-b).v})
}

// TestErrorsAndPanicsReachEverySharer: the read's error, or its panic as an error, goes to each caller
// that shared it, and the group goes on working.
func TestErrorsAndPanicsReachEverySharer(t *testing.T) {
	var g Group[string, int64]
	r := newBlockingRead()
	ctx := context.Background()
	first := do(ctx, &g, "ws", r)
	<-r.started
	x, y := do(ctx, &g, "ws", r), do(ctx, &g, "ws", r)
	waitQueued(t, &g, "ws", 2)
	boom := errors.New("boom")
	r.release <- boom
	require.ErrorIs(t, (<-first).err, boom)
	<-r.started
	r.release <- boom
	require.ErrorIs(t, (<-x).err, boom)
	require.ErrorIs(t, (<-y).err, boom)

	var wg sync.WaitGroup
	errs := make([]error, 3)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _, errs[i] = g.Do(ctx, "p", func(context.Context) (int64, error) { panic("read failed") })
		}()
	}
	wg.Wait()
	for _, err := range errs {
		require.ErrorContains(t, err, "read panicked: read failed")
	}
}

// TestACallerThatGivesUpLeavesTheOthers: a waiting caller whose context ends gets its error at once;
// the read it started still serves the others, and is not cancelled.
func TestACallerThatGivesUpLeavesTheOthers(t *testing.T) {
	var g Group[string, int64]
	r := newBlockingRead()
	first := do(context.Background(), &g, "ws", r)
	<-r.started
	ctx, cancel := context.WithCancel(context.Background())
	quitter := do(ctx, &g, "ws", r)
	waitQueued(t, &g, "ws", 1)
	stayer := do(context.Background(), &g, "ws", r)
	waitQueued(t, &g, "ws", 2)
	cancel()
	require.ErrorIs(t, (<-quitter).err, context.Canceled)

	r.release <- nil
	<-first
	<-r.started
	r.release <- nil
	res := <-stayer
	require.NoError(t, res.err, "the read the quitter started was not cancelled with it")
	require.Equal(t, int64(2), res.v)
}

// TestTimeoutBoundsARead: a read that outlives the group's Timeout ends with its context's error, and
// the callers queued behind it get a read of their own.
func TestTimeoutBoundsARead(t *testing.T) {
	g := Group[string, int64]{Timeout: 50 * time.Millisecond}
	hung := make(chan struct{})
	_, _, err := g.Do(context.Background(), "ws", func(ctx context.Context) (int64, error) {
		<-ctx.Done()
		close(hung)
		return 0, ctx.Err()
	})
	require.ErrorIs(t, err, context.DeadlineExceeded)
	<-hung
	v, _, err := g.Do(context.Background(), "ws", func(context.Context) (int64, error) { return 7, nil })
	require.NoError(t, err)
	require.Equal(t, int64(7), v)
}
