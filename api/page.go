package api

import (
	"cmp"
	"context"
	"net/url"
	"reflect"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"github.com/pilot-dev/pilot/db"
)

// Paged lists answer a bare array, one page of it, and announce the next page only by a Link header
// (RFC 8288): `Link: </same/path?same=query&cursor=…>; rel="next"`, absent on the last page. The
// cursor is opaque (docs/pagination.md); limit is bounded per list.

// PageQuery is the page a paged list's request asks for: embed it in the operation's input. The
// default and the maximum of limit are the ones of most lists (CardPageQuery is the card list's).
type PageQuery struct {
	Limit  int    `query:"limit" minimum:"1" maximum:"200" default:"50" doc:"Items per page (1 to 200, default 50)"`
	Cursor string `query:"cursor" maxLength:"1000" doc:"Where the page starts: the cursor of the previous answer's Link rel=\"next\"; opaque, absent for the first page"`
}

// page is the db.Page asked for; a zero limit (a handler called by an MCP tool without one) is the
// default.
func (q PageQuery) page() db.Page { return db.Page{Limit: cmp.Or(q.Limit, 50), Cursor: q.Cursor} }

// CardPageQuery is PageQuery for the card list, whose default is as large as its maximum so that an
// ordinary project's cards still come in one answer.
type CardPageQuery struct {
	Limit  int    `query:"limit" minimum:"1" maximum:"1000" default:"1000" doc:"Cards per page (1 to 1000, default 1000)"`
	Cursor string `query:"cursor" maxLength:"1000" doc:"Where the page starts: the cursor of the previous answer's Link rel=\"next\"; opaque, absent for the first page"`
}

func (q CardPageQuery) page() db.Page { return db.Page{Limit: cmp.Or(q.Limit, 1000), Cursor: q.Cursor} }

// PageOutput is a page of a list: the bare array, and the Link header naming the next page.
type PageOutput[T any] struct {
	Link string `header:"Link" doc:"The next page, as <path?query&cursor=…>; rel=\"next\" (RFC 8288); absent on the last page"`
	Body []T
	// next is the next page's cursor, for the MCP tools that call the operation ("" on the last page).
	next string
}

// pageOf answers a paged list read: the store's page mapped by f with its Link header, or the store's
// error. Use it as `return pageOf(ctx, commentOut)(s.board.Comments(ctx, …, in.page()))`.
func pageOf[T, O any](ctx context.Context, f func(T) O) func(db.Paged[T], error) (*PageOutput[O], error) {
	return func(p db.Paged[T], err error) (*PageOutput[O], error) {
		if err != nil {
			return nil, fail(err)
		}
		out := make([]O, len(p.Items))
		for i, r := range p.Items {
			out[i] = f(r)
		}
		return &PageOutput[O]{Body: out, Link: nextLink(ctx, p.Next), next: p.Next}, nil
	}
}

// nextLink is the Link header of a page whose next page starts at cursor ("" when there is none): the
// request's own path and query with cursor set.
func nextLink(ctx context.Context, cursor string) string {
	r, _ := rawRequest(ctx)
	if cursor == "" || r == nil {
		return ""
	}
	return linkTo(r.URL, cursor)
}

func linkTo(u *url.URL, cursor string) string {
	q := u.Query()
	q.Set("cursor", cursor)
	return "<" + u.EscapedPath() + "?" + q.Encode() + `>; rel="next"`
}

// pageResponse documents a paged list's answer for operations that write their own body (the card
// list): the array of item and the Link header.
func pageResponse(item *huma.Schema, desc string) map[string]*huma.Response {
	return map[string]*huma.Response{"200": {Description: desc,
		Headers: map[string]*huma.Param{"Link": {Description: "The next page, as <path?query&cursor=…>; rel=\"next\" (RFC " +
			"8288); absent on the last page",
			Schema: &huma.Schema{Type: huma.TypeString}}},
		Content: map[string]*huma.MediaType{"application/json": {Schema: &huma.Schema{Type: huma.TypeArray, Items: item}}}}}
}

// unknownQueryParameter names the first query parameter of the request the operation does not
// declare ("" when there is none): the guard refuses it with 400, as huma refuses an unknown body field,
// so that a misspelt filter or limit is not silently ignored.
func unknownQueryParameter(hctx huma.Context) string {
	u := hctx.URL()
	if u.RawQuery == "" {
		return ""
	}
	params := hctx.Operation().Parameters
	for name := range u.Query() {
		known := false
		for _, p := range params {
			if p.In == "query" && p.Name == name {
				known = true
				break
			}
		}
		if !known {
			return name
		}
	}
	return ""
}

// pagedDescription adds to the description of an operation whose input embeds PageQuery how it pages,
// so that every paged list says it the same way.
func pagedDescription(in reflect.Type, desc string) string {
	if in.Kind() != reflect.Struct {
		return desc
	}
	if f, ok := in.FieldByName("PageQuery"); !ok || !f.Anonymous {
		return desc
	}
	return strings.TrimSpace(desc + "\n\nPaged by keyset: `limit` 1 to 200, default 50; the next page is named by the " +
		"`Link` header (rel=\"next\", the same path and query with `cursor` set), absent on the last page.")
}
