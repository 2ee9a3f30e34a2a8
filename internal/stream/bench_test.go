package stream

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/internal/stream/ssetest"
)

// BenchmarkEventLatency measures, one event in flight at a time, the time from AppendMissionEvent's
// commit (its return) to the client reading the event off its HTTP stream, through pg_notify, the
// relay's batch read and the SSE writer. Each iteration sends 200 events.
func BenchmarkEventLatency(b *testing.B) {
	store := newStore(b)
	r := startRelay(b, store, Config{})
	srv := serveTest(b, r)
	m := newMission(b, store, "running")
	s := ssetest.Open(b, srv.URL+"/"+m, nil)
	require.Equal(b, "ok", s.Next(b, wait).Comment)
	const perIter = 200
	var afterCommit, fromCall []time.Duration
	b.ResetTimer()
	for range b.N {
		for range perIter {
			t0 := time.Now()
			appendEvent(b, store, m, "token", "", "t")
			t1 := time.Now()
			f := s.NextEvent(b, wait)
			afterCommit = append(afterCommit, max(f.At.Sub(t1), 0))
			fromCall = append(fromCall, f.At.Sub(t0))
		}
	}
	b.StopTimer()
	report := func(name string, d []time.Duration) {
		slices.Sort(d)
		b.ReportMetric(float64(d[len(d)/2].Microseconds()), name+"-p50-µs")
		b.ReportMetric(float64(d[len(d)*99/100].Microseconds()), name+"-p99-µs")
	}
	report("commit-to-client", afterCommit)
	report("append-call-to-client", fromCall)
}

// BenchmarkIdleSubscribers measures the relay's memory per idle subscription (its buffer and
// bookkeeping), 5000 subscriptions over 50 missions.
func BenchmarkIdleSubscribers(b *testing.B) {
	store := newStore(b)
	r := startRelay(b, store, Config{})
	missions := make([]string, 50)
	for i := range missions {
		missions[i] = newMission(b, store, "running")
	}
	const n = 5000
	var perSub float64
	for range b.N {
		before := heap()
		subs := make([]*Subscription, 0, n)
		for i := range n {
			sub, err := r.Subscribe(context.Background(), missions[i%len(missions)])
			require.NoError(b, err)
			subs = append(subs, sub)
		}
		perSub = float64(heap()-before) / n
		for _, sub := range subs {
			sub.Close()
		}
	}
	b.ReportMetric(perSub, "B/idle-subscription")
}

// BenchmarkIdleStreams measures the server's memory per idle HTTP event stream (1000 of them,
// heartbeats off): heap plus goroutine stacks. The clients are bare TCP connections that read the
// response head and ":ok", so nearly all of the figure is the server's: its connection, handler
// goroutine, buffers and subscription.
func BenchmarkIdleStreams(b *testing.B) {
	store := newStore(b)
	r := startRelay(b, store, Config{Heartbeat: time.Hour})
	srv := serveTest(b, r)
	m := newMission(b, store, "running")
	addr := strings.TrimPrefix(srv.URL, "http://")
	const n = 1000
	var perStream float64
	for range b.N {
		before := heap()
		conns := make([]net.Conn, 0, n)
		buf := make([]byte, 512)
		for range n {
			c, err := net.Dial("tcp", addr)
			require.NoError(b, err)
			_, err = fmt.Fprintf(c, "GET /%s HTTP/1.1\r\nHost: %s\r\n\r\n", m, addr)
			require.NoError(b, err)
			var got []byte
			for !bytes.Contains(got, []byte(":ok\n\n")) {
				k, err := c.Read(buf)
				require.NoError(b, err)
				got = append(got, buf[:k]...)
			}
			conns = append(conns, c)
		}
		require.Eventually(b, func() bool { return r.subscribers() == n }, wait, 10*time.Millisecond)
		perStream = float64(heap()-before) / n
		for _, c := range conns {
			_ = c.Close()
		}
		require.Eventually(b, func() bool { return r.subscribers() == 0 }, wait, 10*time.Millisecond)
	}
	b.ReportMetric(perStream, "B/idle-stream")
}

// heap is the live heap plus goroutine stacks after a collection.
func heap() int64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc + ms.StackInuse)
}
