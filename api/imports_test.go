package api

import (
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/internal/stream"
	"github.com/pilot-dev/pilot/internal/stream/ssetest"
)

func importsPath(u user) string {
	return "/orgs/" + u.OrgSlug + "/workspaces/" + u.WsSlug + "/imports"
}

func (e *testEnv) uploadImport(u user, source, name string, data []byte) *resp {
	e.t.Helper()
	extra := map[string]string{}
	if source != "" {
		extra["source"] = source
	}
	body, ct := multipartFile(e.t, "file", name, "application/octet-stream", data, extra)
	return e.send(req{Method: "POST", Path: importsPath(u), Token: u.Token, Body: body,
		Header: map[string]string{"Content-Type": ct}})
}

// A Trello board through a real worker: 202, the stream from queued to done with the counts, the
// import's report, the project made; the same file again is 409.
func TestImportTrelloFlow(t *testing.T) {
	s := newDraftServer(t, time.Second, nil)
	owner := s.register("ada@example.com")
	board, err := os.ReadFile("../db/transfer/sources/testdata/trello_board.json")
	require.NoError(t, err)

	r := s.uploadImport(owner, "trello", "board.json", board)
	requireStatus(t, r, http.StatusAccepted)
	im := decode[ImportOut](t, r)
	require.Equal(t, "queued", string(im.Status))
	require.Equal(t, "board.json", im.FileName)

	st := ssetest.Open(t, s.url+importsPath(owner)+"/"+im.ID+"/events",
		map[string]string{"Authorization": "Bearer " + owner.Token})
	require.Equal(t, http.StatusOK, st.Resp.StatusCode)
	var types []string
	var last stream.Event
	for last.Type != "done" {
		f := st.NextEvent(t, 30*time.Second)
		last = decodeJSON[stream.Event](t, []byte(f.Data))
		require.Equal(t, "importId", last.IDField)
		types = append(types, last.Type+":"+last.Status)
	}
	require.Equal(t, []string{"status:queued", "status:running", "progress:running", "done:completed"}, types)
	data := decodeJSON[map[string]any](t, last.Data)
	require.EqualValues(t, 14, data["itemsCreated"])
	st.RequireEnd(t, 10*time.Second)

	got := decode[ImportOut](t, s.do("GET", importsPath(owner)+"/"+im.ID, owner.Token, nil))
	require.Equal(t, "completed", string(got.Status))
	require.Equal(t, 14, got.ItemsCreated)
	require.Len(t, got.Report.Projects, 1)
	require.Equal(t, 4, got.Report.Projects[0].Created.Cards)
	require.NotEmpty(t, got.Report.Skipped)
	cards := s.do("GET", "/orgs/"+owner.OrgSlug+"/workspaces/"+owner.WsSlug+"/projects/"+
		got.Report.Projects[0].ProjectID+"/cards", owner.Token, nil)
	requireStatus(t, cards, http.StatusOK)
	require.Contains(t, string(cards.Body), `Second \u003cimg src=x onerror=alert(1)\u003e`)

	list := decode[[]ImportOut](t, s.do("GET", importsPath(owner), owner.Token, nil))
	require.Len(t, list, 1)

	again := s.uploadImport(owner, "trello", "copy.json", board)
	requireErrorShape(t, again, http.StatusConflict)
	require.Contains(t, string(again.Body), "already imported")
}

func TestImportRefusals(t *testing.T) {
	t.Parallel()
	e := setup(t)
	owner := e.register("ada@example.com")
	requireErrorShape(t, e.uploadImport(owner, "", "x.json", []byte("{}")), http.StatusBadRequest)
	requireErrorShape(t, e.uploadImport(owner, "asana", "x.json", []byte("{}")), http.StatusBadRequest)
	requireErrorShape(t, e.uploadImport(owner, "jira", "x.csv", nil), http.StatusBadRequest)
	big := make([]byte, 20<<20+1)
	requireErrorShape(t, e.uploadImport(owner, "jira", "x.csv", big), http.StatusRequestEntityTooLarge)
	r := e.send(req{Method: "POST", Path: importsPath(owner), Token: owner.Token, Body: map[string]any{"source": "jira"}})
	requireErrorShape(t, r, http.StatusUnsupportedMediaType)
	requireErrorShape(t, e.do("GET", importsPath(owner)+"/nope", owner.Token, nil), http.StatusNotFound)
	requireErrorShape(t, e.do("GET", importsPath(owner)+"/01a21d65-c649-765c-9db8-c026c9cc7602", owner.Token, nil),
		http.StatusNotFound)

	other := e.register("bo@example.com")
	im := decode[ImportOut](t, e.uploadImport(owner, "jira", "x.csv", []byte("Summary,Issue key,Status\nA,X-1,Open\n")))
	requireErrorShape(t, e.do("GET", "/orgs/"+other.OrgSlug+"/workspaces/"+other.WsSlug+"/imports/"+im.ID,
		other.Token, nil), http.StatusNotFound)
}
