package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db/engines"
	"github.com/pilot-dev/pilot/internal/accesscache"
	"github.com/pilot-dev/pilot/internal/billing"
	"github.com/pilot-dev/pilot/internal/pgtest"
	"github.com/pilot-dev/pilot/internal/stream"
	"github.com/pilot-dev/pilot/internal/stream/ssetest"
)

// feedBench is one api process (relay and access cache as `pilot api` runs them) over real HTTP, with a
// registered user and a project in their personal workspace.
type feedBench struct {
	relay       *stream.Relay
	url, token  string
	ws, project string
}

func newFeedBench(b *testing.B) *feedBench {
	ctx, cancel := context.WithCancel(context.Background())
	b.Cleanup(cancel)
	dbPool := pgtest.Pool(b)
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	apiRiver, err := river.NewClient(riverpgxv5.New(dbPool), &river.Config{})
	require.NoError(b, err)
	eng := engines.New(dbPool, apiRiver, engines.Options{})
	relay := stream.Start(ctx, eng.Store, stream.Config{Logger: logger, Heartbeat: time.Hour})
	b.Cleanup(relay.Close)
	cache := accesscache.Start(ctx, eng.Store, logger)
	<-cache.Ready()
	h := New(eng, testSigner(testJWTSecret, time.Hour), billing.Local{PublicURL: "http://pilot.test"}, logger,
		Options{PublicURL: "http://pilot.test", LoginRateLimit: 1000, RegisterRateLimit: 1000, Relay: relay,
			AccessCache: cache})
	srv := httptest.NewServer(h)
	b.Cleanup(srv.Close)
	f := &feedBench{relay: relay, url: srv.URL}
	var session SessionBody
	f.post(b, "/auth/register", map[string]any{"email": "bench@example.com", "password": "correct-horse"}, &session)
	f.token = session.AccessToken
	var orgs []OrganizationOut
	f.call(b, http.MethodGet, "/organizations", nil, &orgs)
	f.ws = "/orgs/" + orgs[0].Slug + "/workspaces/personal"
	var p ProjectOut
	f.post(b, f.ws+"/projects", map[string]any{"name": "Bench"}, &p)
	f.project = f.ws + "/projects/" + p.ID
	return f
}

func (f *feedBench) post(b *testing.B, path string, body, out any) {
	f.call(b, http.MethodPost, path, body, out)
}

func (f *feedBench) call(b *testing.B, method, path string, body, out any) {
	buf, _ := json.Marshal(body)
	req, _ := http.NewRequest(method, f.url+path, bytes.NewReader(buf))
	req.Header.Set("Content-Type", "application/json")
	if f.token != "" {
		req.Header.Set("Authorization", "Bearer "+f.token)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(b, err)
	defer resp.Body.Close()
	require.Less(b, resp.StatusCode, 300)
	if out != nil {
		require.NoError(b, json.NewDecoder(resp.Body).Decode(out))
	}
}

// BenchmarkFeedLatency measures the workspace event feed on one api process with 1, 100 and 1,000
// subscribers of one workspace, each its own HTTP stream: one card created at a time through the api,
// from its commit (the create's answer) to each subscriber reading the card_created event off its
// stream (writes spread at random over the poll interval), through the activities poller (every 20 ms,
// EVENTS_POLL_INTERVAL's default), the relay's fan-out, the per-reader access check and the SSE writer. p50/p99 over
// every (event, subscriber). Figures, never pass/fail: `make bench/feed`.
func BenchmarkFeedLatency(b *testing.B) {
	for _, n := range []int{1, 100, 1000} {
		b.Run(fmt.Sprintf("subscribers=%d", n), func(b *testing.B) {
			f := newFeedBench(b)
			auth := map[string]string{"Authorization": "Bearer " + f.token}
			subs := make([]*ssetest.Stream, n)
			for i := range subs {
				subs[i] = ssetest.Open(b, f.url+f.ws+"/events", auth)
				require.Equal(b, "ok", subs[i].Next(b, 10*time.Second).Comment)
			}
			events := map[int]int{1: 200, 100: 50, 1000: 30}[n]
			var afterCommit, fromCall []time.Duration
			b.ResetTimer()
			for range b.N {
				for range events {
					// A pause of a random part of the poll interval, so that writes do not fall in step
					// with the poller (one write right after each read would always wait a whole interval).
					time.Sleep(time.Duration(rand.Int64N(int64(stream.DefaultFeedPoll))))
					t0 := time.Now()
					f.post(b, f.project+"/cards", map[string]any{"title": "Bench"}, nil)
					t1 := time.Now()
					for _, s := range subs {
						fr := s.NextEvent(b, 10*time.Second)
						require.Equal(b, "card_created", fr.Event)
						afterCommit = append(afterCommit, max(fr.At.Sub(t1), 0))
						fromCall = append(fromCall, fr.At.Sub(t0))
					}
				}
			}
			b.StopTimer()
			report := func(name string, d []time.Duration) {
				slices.Sort(d)
				b.ReportMetric(float64(d[len(d)/2].Microseconds())/1000, name+"-p50-ms")
				b.ReportMetric(float64(d[len(d)*99/100].Microseconds())/1000, name+"-p99-ms")
			}
			report("commit-to-client", afterCommit)
			report("create-call-to-client", fromCall)
		})
	}
}

// BenchmarkFeedIdleStreams measures the api process's memory per idle event feed (1,000 of them on one
// workspace, heartbeats off): heap plus goroutine stacks. The clients are bare TCP connections that read
// the response head and ":ok", so nearly all of the figure is the server's: its connection, the handler
// goroutine, the guard's resolution, buffers and the feed subscription.
func BenchmarkFeedIdleStreams(b *testing.B) {
	f := newFeedBench(b)
	addr := strings.TrimPrefix(f.url, "http://")
	const n = 1000
	var perStream float64
	for range b.N {
		before := heapInUse()
		conns := make([]net.Conn, 0, n)
		buf := make([]byte, 4096)
		for range n {
			c, err := net.Dial("tcp", addr)
			require.NoError(b, err)
			_, err = fmt.Fprintf(c, "GET %s/events HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\n\r\n", f.ws, addr,
				f.token)
			require.NoError(b, err)
			var got []byte
			for !bytes.Contains(got, []byte(":ok\n\n")) {
				k, err := c.Read(buf)
				require.NoError(b, err)
				got = append(got, buf[:k]...)
			}
			conns = append(conns, c)
		}
		require.Eventually(b, func() bool { return f.relay.Stats().FeedSubscribers == n }, 10*time.Second,
			10*time.Millisecond)
		perStream = float64(heapInUse()-before) / n
		for _, c := range conns {
			_ = c.Close()
		}
		require.Eventually(b, func() bool { return f.relay.Stats().FeedSubscribers == 0 }, 10*time.Second,
			10*time.Millisecond)
	}
	b.ReportMetric(perStream, "B/idle-feed")
}

// heapInUse is the live heap plus goroutine stacks after a collection.
func heapInUse() int64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc + ms.StackInuse)
}
