package sources

// Reading a CSV export by its header names: a column is found by its name (any case, spaces trimmed),
// a repeated header (Jira's Labels, Comment) is read as a list.

import (
	"bytes"
	"encoding/csv"
	"errors"
	"io"
	"strings"
)

// csvTable is a CSV file read: its rows and where each header name's columns are.
type csvTable struct {
	cols map[string][]int
	rows [][]string
}

func readCSV(data []byte) (*csvTable, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord = -1
	r.LazyQuotes = true
	head, err := r.Read()
	if errors.Is(err, io.EOF) {
		return nil, unreadable("the file is empty")
	}
	if err != nil {
		return nil, unreadable("not a CSV file: %v", err)
	}
	t := &csvTable{cols: map[string][]int{}}
	for i, h := range head {
		k := strings.ToLower(strings.TrimSpace(h))
		t.cols[k] = append(t.cols[k], i)
	}
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, unreadable("not a CSV file: %v", err)
		}
		t.rows = append(t.rows, rec)
	}
	return t, nil
}

// missing answers the names among required that no header has.
func (t *csvTable) missing(required ...string) []string {
	var out []string
	for _, r := range required {
		if !t.has(r) {
			out = append(out, r)
		}
	}
	return out
}

func (t *csvTable) has(name string) bool { return len(t.cols[strings.ToLower(name)]) > 0 }

// get answers the first non-blank value of the first header among names.
func (t *csvTable) get(row []string, names ...string) string {
	for _, n := range names {
		for _, i := range t.cols[strings.ToLower(n)] {
			if i < len(row) && strings.TrimSpace(row[i]) != "" {
				return strings.TrimSpace(row[i])
			}
		}
	}
	return ""
}

// all answers every non-blank value of the columns named name.
func (t *csvTable) all(row []string, name string) []string {
	var out []string
	for _, i := range t.cols[strings.ToLower(name)] {
		if i < len(row) && strings.TrimSpace(row[i]) != "" {
			out = append(out, row[i])
		}
	}
	return out
}

// prefixed answers, for each header starting with prefix, its values (by the rest of its name).
func (t *csvTable) prefixed(row []string, prefix string) map[string][]string {
	out := map[string][]string{}
	for h := range t.cols {
		if rest, ok := strings.CutPrefix(h, prefix); ok {
			out[rest] = append(out[rest], t.all(row, h)...)
		}
	}
	return out
}
