package imports_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db/imports"
	"github.com/pilot-dev/pilot/db/transfer/sources"
)

// trelloBoard builds a Trello board export of n cards over 10 lists, each card with a label, a checklist
// of 3 items, a comment, a due date and an attachment link, as Trello writes them.
func trelloBoard(n int) []byte {
	type m = map[string]any
	lists, cards, checklists, actions := []m{}, []m{}, []m{}, []m{}
	for i := range 10 {
		lists = append(lists, m{"id": fmt.Sprintf("L%d", i), "name": fmt.Sprintf("List %d", i), "pos": i})
	}
	for i := range n {
		id := fmt.Sprintf("C%d", i)
		cards = append(cards, m{"id": id, "name": fmt.Sprintf("Card %d", i), "desc": "Some description of the work",
			"idList": fmt.Sprintf("L%d", i%10), "pos": i, "due": "2026-03-01T12:00:00.000Z", "idLabels": []string{"B"},
			"idMembers": []string{}, "attachments": []m{{"name": "spec.pdf", "url": "https://example.com/spec.pdf"}}})
		checklists = append(checklists, m{"id": "K" + id, "idCard": id, "name": "Steps", "checkItems": []m{
			{"name": "One", "state": "complete", "pos": 1}, {"name": "Two", "state": "incomplete", "pos": 2},
			{"name": "Three", "state": "incomplete", "pos": 3}}})
		actions = append(actions, m{"type": "commentCard", "date": "2026-02-21T10:00:00.000Z",
			"data": m{"text": "A comment", "card": m{"id": id}}, "memberCreator": m{"fullName": "Ann"}})
	}
	b, _ := json.Marshal(m{"name": "Big board", "lists": lists, "cards": cards, "checklists": checklists,
		"actions": actions, "labels": []m{{"id": "B", "name": "Bug", "color": "red"}}})
	return b
}

// BenchmarkTrelloImport5000 imports a 5,000-card Trello board end to end (the upload recorded, the job's
// read and write, the report): time per import and the peak of the Go heap while it runs (make
// bench/imports).
func BenchmarkTrelloImport5000(b *testing.B) {
	e := setup(b)
	board := trelloBoard(5000)
	var peak uint64
	for i := 0; b.Loop(); i++ {
		data := append(append([]byte{}, board...), bytes.Repeat([]byte(" "), i+1)...) // another file each round
		stop := sampleHeap(&peak)
		start := time.Now()
		im, err := e.Imports.Create(context.Background(), e.ws(), e.team.Owner.User.ID, sources.Trello, "board.json", data)
		require.NoError(b, err)
		require.NoError(b, e.Imports.Run(context.Background(), im.ID, e.files))
		elapsed := time.Since(start)
		stop()
		got, err := e.Imports.Get(context.Background(), e.ws(), im.ID)
		require.NoError(b, err)
		require.Equal(b, imports.StatusCompleted, got.Status)
		require.Equal(b, 5000, got.Report.Projects[0].Created.Cards)
		b.ReportMetric(elapsed.Seconds(), "s/import")
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
	b.ReportMetric(float64(len(board))/(1<<20), "file-MB")
}

// sampleHeap records the largest heap in use into peak every 5 ms until stopped.
func sampleHeap(peak *uint64) (stop func()) {
	runtime.GC()
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			*peak = max(*peak, ms.HeapInuse)
			select {
			case <-done:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}
