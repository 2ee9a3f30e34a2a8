package db

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"math"
	"time"

	"github.com/google/uuid"

	"github.com/pilot-dev/pilot/db/internal/dbcore"
)

// Page asks for one page of a list: at most Limit (1 or more) items after the position Cursor names
// ("" for the first page). Every list that can grow is read by keyset (docs/pagination.md): the cursor
// carries the sort key and id of the last item of the previous page, never an offset, so an item
// inserted or deleted between two pages neither repeats nor skips the items the reader has not seen.
type Page struct {
	Limit  int
	Cursor string
}

// Paged is one page of a list: its items, and Next, the cursor of the following page ("" on the last).
type Paged[T any] struct {
	Items []T
	Next  string
}

// ErrBadCursor is the refusal of a cursor that is not one this list made.
var ErrBadCursor = dbcore.Invalid("cursor: invalid")

// cursorDoc is what a cursor encodes: the list it was made for (so a cursor of another list is
// refused rather than misread) and the keyset of the last item seen.
type cursorDoc struct {
	List string          `json:"l"`
	Key  json.RawMessage `json:"k"`
}

// EncodeCursor makes the opaque cursor of the item whose keyset is key in list.
func EncodeCursor(list string, key any) string {
	k, err := json.Marshal(key)
	if err != nil {
		panic("db: cursor key does not encode: " + err.Error()) // keys are structs of plain fields
	}
	b, _ := json.Marshal(cursorDoc{List: list, Key: k})
	return base64.RawURLEncoding.EncodeToString(b)
}

// After decodes the page's cursor for list into key: false for the first page (no cursor),
// ErrBadCursor for a cursor that is malformed or was made for another list. A key's own check
// (every field there, ids that are ids) is its Valid method, when it has one.
func (p Page) After(list string, key any) (bool, error) {
	if p.Cursor == "" {
		return false, nil
	}
	raw, err := base64.RawURLEncoding.DecodeString(p.Cursor)
	if err != nil {
		return false, ErrBadCursor
	}
	var doc cursorDoc
	if json.Unmarshal(raw, &doc) != nil || doc.List != list || len(doc.Key) == 0 {
		return false, ErrBadCursor
	}
	dec := json.NewDecoder(bytes.NewReader(doc.Key))
	dec.DisallowUnknownFields()
	if dec.Decode(key) != nil {
		return false, ErrBadCursor
	}
	if v, ok := key.(interface{ Valid() bool }); ok && !v.Valid() {
		return false, ErrBadCursor
	}
	return true, nil
}

// Fetch is the number of rows to read for the page: one more than its limit, which says whether a
// next page exists without counting.
func (p Page) Fetch() int32 { return dbcore.Int32(min(p.Limit, math.MaxInt32-1) + 1) }

// PageOf cuts the rows read with Fetch to the page's limit and makes the next page's cursor from the
// last item kept, when more rows were there.
func PageOf[T any](p Page, list string, rows []T, key func(T) any) Paged[T] {
	if len(rows) <= p.Limit {
		return Paged[T]{Items: rows}
	}
	rows = rows[:p.Limit]
	return Paged[T]{Items: rows, Next: EncodeCursor(list, key(rows[len(rows)-1]))}
}

// TimeKey is the keyset of lists sorted by creation time: the time, then the id (UUIDv7) for ties.
type TimeKey struct {
	At time.Time `json:"t"`
	ID string    `json:"i"`
}

// Valid says whether the key decoded from a cursor has a time and an id.
func (k *TimeKey) Valid() bool { return !k.At.IsZero() && ValidID(k.ID) }

// ValidID says whether s is a UUID as PostgreSQL writes them (a cursor carries ids it read).
func ValidID(s string) bool {
	u, err := uuid.Parse(s)
	return err == nil && u.String() == s
}

// The bounds a first page starts from: every row sorts after (firstTime, FirstID) and before
// (lastTime, lastID), so a list's query has one keyset condition whether or not a cursor was given
// (and one plan that walks its index).
var (
	firstTime = time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC)
	lastTime  = time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)
)

const (
	// FirstID sorts before every id, the start of a first page's keyset.
	FirstID = "00000000-0000-0000-0000-000000000000"
	lastID  = "ffffffff-ffff-ffff-ffff-ffffffffffff"
)

// AfterTime decodes the page's cursor as a TimeKey of list: the key to read after, or, for a first
// page, the bound every row of an ascending list (desc false) or a descending one (desc true) passes.
func (p Page) AfterTime(list string, desc bool) (TimeKey, error) {
	var k TimeKey
	ok, err := p.After(list, &k)
	switch {
	case err != nil || ok:
		return k, err
	case desc:
		return TimeKey{At: lastTime, ID: lastID}, nil
	default:
		return TimeKey{At: firstTime, ID: FirstID}, nil
	}
}

// MemberKey is the keyset of member lists: when the member joined, then their e-mail address.
type MemberKey struct {
	At    time.Time `json:"t"`
	Email string    `json:"e"`
}

// Valid says whether the key decoded from a cursor has a time and an e-mail.
func (k *MemberKey) Valid() bool { return !k.At.IsZero() && k.Email != "" }

// AfterMember decodes the page's cursor as a MemberKey of list: the key to read after, or, for a
// first page, one every member passes.
func (p Page) AfterMember(list string) (MemberKey, error) {
	var k MemberKey
	if ok, err := p.After(list, &k); err != nil || ok {
		return k, err
	}
	return MemberKey{At: firstTime}, nil
}
