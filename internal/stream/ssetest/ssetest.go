// Package ssetest reads server-sent event streams in tests, line by line, over real HTTP.
package ssetest

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// Frame is one message of a stream: an event (ID, Event, Data) or a comment.
type Frame struct {
	ID, Event, Data string
	Comment         string
	// At is when the reader saw the frame's terminating blank line.
	At time.Time
}

// Stream is an open event stream.
type Stream struct {
	Resp   *http.Response
	C      <-chan Frame
	cancel context.CancelFunc
	done   chan struct{}
}

// Open sends GET url with headers and, on a 200, reads frames in the background. On another status the
// body is left unread for the caller (Stream.C is nil).
func Open(t testing.TB, url string, header map[string]string) *Stream {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "text/event-stream")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req) //nolint:bodyclose // the Stream owns resp: Close, a t.Cleanup, closes its body
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	s := &Stream{Resp: resp, cancel: cancel, done: make(chan struct{})}
	t.Cleanup(s.Close)
	if resp.StatusCode != http.StatusOK {
		close(s.done)
		return s
	}
	ch := make(chan Frame, 256)
	s.C = ch
	go func() {
		defer close(s.done)
		defer close(ch)
		read(resp.Body, ch)
	}()
	return s
}

func read(body io.Reader, ch chan<- Frame) {
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 4096), 4*1024*1024)
	var f Frame
	var filled bool
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			if filled {
				f.At = time.Now()
				ch <- f
			}
			f, filled = Frame{}, false
			continue
		}
		filled = true
		if c, ok := strings.CutPrefix(line, ":"); ok {
			f.Comment = strings.TrimPrefix(c, " ")
			continue
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "id":
			f.ID = value
		case "event":
			f.Event = value
		case "data":
			if f.Data != "" {
				f.Data += "\n"
			}
			f.Data += value
		}
	}
}

// Next returns the next frame (comments included); it fails the test after timeout or at the end of
// the stream.
func (s *Stream) Next(t testing.TB, timeout time.Duration) Frame {
	t.Helper()
	select {
	case f, ok := <-s.C:
		if !ok {
			t.Fatal("stream ended")
		}
		return f
	case <-time.After(timeout):
		t.Fatalf("no frame within %s", timeout)
	}
	return Frame{}
}

// NextEvent returns the next event, skipping comments.
func (s *Stream) NextEvent(t testing.TB, timeout time.Duration) Frame {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		f := s.Next(t, time.Until(deadline))
		if f.Comment == "" {
			return f
		}
	}
}

// RequireEnd asserts that the server ends the stream within timeout with no further event.
func (s *Stream) RequireEnd(t testing.TB, timeout time.Duration) {
	t.Helper()
	deadline := time.After(timeout)
	for {
		select {
		case f, ok := <-s.C:
			if !ok {
				return
			}
			if f.Comment == "" {
				t.Fatalf("unexpected event before the end: %+v", f)
			}
		case <-deadline:
			t.Fatalf("stream still open after %s", timeout)
		}
	}
}

// Close disconnects and waits for the reader.
func (s *Stream) Close() {
	s.cancel()
	_ = s.Resp.Body.Close()
	<-s.done
}
