package web_test

import (
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/stretchr/testify/require"
)

// TestBrowserBoardColumnReorder: on the board itself, a column moved right with the keyboard (its Move
// right button, the focus kept on it) and another dragged by its header to the front; each order checked
// through the API and kept after a reload.
func TestBrowserBoardColumnReorder(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	a := s.register("cole@example.com")
	prj, _ := s.projectWithCard(a, "Launch", map[string]any{"title": "Plan"})
	base := a.ws() + "/projects/" + prj
	apiOrder := `fetch(` + jsString(base+"/columns") + `).then(r => r.json())
		.then(cs => cs.sort((a, b) => a.order - b.order).map(c => c.name).join("|"))`
	boardOrder := `[...document.querySelectorAll(".board .column h2")].map(h => h.firstChild.textContent.trim()).join("|")`
	var cols []struct{ ID, Name string }
	s.call("GET", base+"/columns", a.Token, nil, &cols)
	require.Len(t, cols, 3)
	first, second, third := cols[0].Name, cols[1].Name, cols[2].Name

	ctx := page(t)
	signIn(t, ctx, s, a)
	do(t, ctx, chromedp.Navigate(s.url+"/w/"+a.Org+"/"+a.WS+"/p/"+prj), chromedp.WaitVisible(chromedp.CSS(`.column`)))
	accessible(t, ctx, "board with column controls")

	// The keyboard: focus the first column's Move right button, press Enter.
	do(t, ctx, chromedp.Focus(chromedp.CSS(`[data-column-move="`+cols[0].ID+`:right"]`)),
		chromedp.KeyEvent(kb.Enter))
	want := second + "|" + first + "|" + third
	waitFor(t, ctx, "the column moved right", `(async () => (await `+apiOrder+`) === `+jsString(want)+` && `+
		boardOrder+` === `+jsString(want)+`)()`)
	require.Equal(t, cols[0].ID+":right", eval[string](t, ctx, `document.activeElement.dataset.columnMove || ""`))
	// Again: it reaches the end, its Move right disabled, the focus on its Move left.
	do(t, ctx, chromedp.KeyEvent(kb.Enter))
	want = second + "|" + third + "|" + first
	waitFor(t, ctx, "the column at the end", `(async () => (await `+apiOrder+`) === `+jsString(want)+`)()`)
	require.Equal(t, cols[0].ID+":left", eval[string](t, ctx, `document.activeElement.dataset.columnMove || ""`))

	// Dragging the last column's header onto the first column.
	eval[bool](t, ctx, `(() => {
		const head = document.querySelector('[data-column-id="`+cols[0].ID+`"] .column-head');
		const target = document.querySelector('[data-column-id="`+cols[1].ID+`"]');
		const dt = new DataTransfer();
		head.dispatchEvent(new DragEvent("dragstart", {bubbles: true, dataTransfer: dt}));
		target.dispatchEvent(new DragEvent("dragover", {bubbles: true, cancelable: true, dataTransfer: dt}));
		target.dispatchEvent(new DragEvent("drop", {bubbles: true, cancelable: true, dataTransfer: dt}));
		return true; })()`)
	want = first + "|" + second + "|" + third
	waitFor(t, ctx, "the column dragged to the front", `(async () => (await `+apiOrder+`) === `+jsString(want)+`)()`)
	do(t, ctx, chromedp.Reload())
	waitFor(t, ctx, "the order after a reload", boardOrder+` === `+jsString(want))
}
