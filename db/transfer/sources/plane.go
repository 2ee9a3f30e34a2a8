package sources

// Plane's work item export (Workspace settings → Exports → CSV): one CSV file per project, or one for all,
// delivered in a zip archive; the zip or a CSV file taken out of it is read. Columns are found by the
// labels Plane writes (any case); ID, Name and State are required. Plane prefixes a cell starting with
// =, +, -, @ or a tab with a quote (so a spreadsheet does not run it): that quote is taken off again.

import (
	"cmp"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/pilot-dev/pilot/db/transfer"
)

// planeRequired are the headers a Plane CSV must have.
var planeRequired = []string{"ID", "Name", "State"}

var planeDateLayouts = []string{"Mon, 02 Jan 2006", "Mon, 2 Jan 2006", "2006-01-02", time.RFC3339,
	"Mon, 02 Jan 2006 03:04:05 PM MST-0700", "Mon, 02 Jan 2006 03:04:05 PM"}

var planePriorities = map[string]string{"urgent": "high", "high": "high", "medium": "medium", "low": "low"}

// planeStateOrder places Plane's default states (and their groups' names) in their board's order.
var planeStateOrder = map[string]int{"backlog": 0, "todo": 1, "unstarted": 1, "in progress": 2, "started": 2,
	"in review": 3, "done": 5, "completed": 5, "cancelled": 6, "canceled": 6}

// planeRelations map a relation of Plane's Relations cell (this work item → the named one).
var planeRelations = map[string]struct {
	typ     string
	reverse bool
}{
	"blocking": {"blocks", false}, "blocked_by": {"blocks", true}, "duplicate": {"duplicates", false},
	"relates_to": {"related_to", false}, "start_before": {"blocks", false}, "start_after": {"blocks", true},
	"finish_before": {"blocks", false}, "finish_after": {"blocks", true}, "implemented_by": {"related_to", false},
	"implements": {"related_to", false},
}

// planeCell takes off the quote Plane puts before a cell a spreadsheet would read as a formula.
func planeCell(s string) string {
	if len(s) > 1 && s[0] == '\'' && strings.ContainsRune("=+-@\t\r\n", rune(s[1])) {
		return s[1:]
	}
	return s
}

// planeList splits a list cell (Plane joins lists with ", ").
func planeList(s string) []string {
	var out []string
	for _, v := range strings.Split(planeCell(s), ", ") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

func parsePlane(data []byte) (Export, error) {
	var tables []*csvTable
	if isZip(data) {
		zr, err := openZip(data)
		if err != nil {
			return Export{}, err
		}
		for _, f := range zr.File {
			if !strings.EqualFold(path.Ext(f.Name), ".csv") {
				continue
			}
			raw, err := readZipFile(f, MaxFileSize[Plane])
			if err != nil {
				return Export{}, unreadable("%s cannot be read: %v", f.Name, err)
			}
			if len(strings.TrimSpace(string(raw))) == 0 {
				continue // Plane writes an empty file for a project without work items
			}
			t, err := readCSV(raw)
			if err != nil {
				return Export{}, err
			}
			tables = append(tables, t)
		}
		if len(tables) == 0 {
			return Export{}, unreadable("the archive holds no CSV file: export Plane's work items as CSV")
		}
	} else {
		t, err := readCSV(data)
		if err != nil {
			return Export{}, err
		}
		tables = append(tables, t)
	}
	type proj struct {
		name string
		rows []planeRow
	}
	var projects []*proj
	byKey := map[string]*proj{}
	for _, t := range tables {
		if m := t.missing(planeRequired...); len(m) > 0 {
			return Export{}, unreadable("not a Plane CSV export: missing the column(s) %s", strings.Join(m, ", "))
		}
		for _, row := range t.rows {
			key := planeCell(t.get(row, "Project Identifier", "Project ID", "Project"))
			p := byKey[key]
			if p == nil {
				p = &proj{name: cmp.Or(planeCell(t.get(row, "Project")), key, "Plane import")}
				byKey[key] = p
				projects = append(projects, p)
			}
			p.rows = append(p.rows, planeRow{t: t, row: row})
		}
	}
	var out Export
	for _, p := range projects {
		out.Projects = append(out.Projects, planeProject(p.name, p.rows))
	}
	if len(out.Projects) == 0 {
		return out, unreadable("the file has no work items")
	}
	return out, nil
}

type planeRow struct {
	t   *csvTable
	row []string
}

func (r planeRow) get(names ...string) string { return planeCell(r.t.get(r.row, names...)) }

func planeProject(name string, rows []planeRow) Project {
	b := newBuilder(name, "")
	type state struct {
		name         string
		order, first int
	}
	var states []state
	seen := map[string]bool{}
	for i, r := range rows {
		s := cmp.Or(r.get("State"), "No state")
		if seen[s] {
			continue
		}
		seen[s] = true
		order, ok := planeStateOrder[strings.ToLower(s)]
		if !ok {
			order = 4
		}
		states = append(states, state{name: s, order: order, first: i})
	}
	slices.SortStableFunc(states, func(a, c state) int { return cmp.Compare(a.order, c.order) })
	for _, s := range states {
		b.column(s.name, s.name)
	}
	type link struct{ from, to, typ string }
	var links []link
	for _, r := range rows {
		key := r.get("ID")
		title := r.get("Name")
		col, ok := b.cols[cmp.Or(r.get("State"), "No state")]
		if !ok {
			b.skip(fmt.Sprintf("work item %s", key), "its state has no column")
			continue
		}
		c := transfer.TransferCard{Title: title, ColumnIndex: col, Description: r.get("Description"),
			Priority:  planePriorities[strings.ToLower(r.get("Priority"))],
			StartDate: parseTime(r.get("Start Date"), planeDateLayouts...),
			DueDate:   parseTime(r.get("Target Date", "Due Date"), planeDateLayouts...),
			Archived:  r.get("Archived At") != ""}
		if key != "" && title != "" {
			c.Title = key + " " + title
		}
		for _, l := range planeList(r.get("Labels")) {
			if n := b.label(l, "#3f76ff"); n != "" && !slices.Contains(c.Labels, n) {
				c.Labels = append(c.Labels, n)
			}
		}
		if cell := r.get("Comments"); cell != "" && cell != "[]" {
			var comments []struct {
				Comment   string `json:"comment"`
				CreatedAt string `json:"created_at"`
				CreatedBy string `json:"created_by"`
			}
			if err := json.Unmarshal([]byte(cell), &comments); err != nil {
				b.skip(fmt.Sprintf("the comments of work item %s", key), "the Comments cell is not Plane's JSON list")
			}
			for _, cm := range comments {
				tc := transfer.TransferComment{Content: cm.Comment, CreatedAt: parseTime(cm.CreatedAt, planeDateLayouts...)}
				if who := strings.TrimSpace(cm.CreatedBy); who != "" {
					tc.Content = who + ": " + tc.Content
				}
				c.Comments = append(c.Comments, tc)
			}
		}
		var urls [][2]string
		for _, u := range planeList(r.get("Link")) {
			urls = append(urls, [2]string{u, u})
		}
		c.Description = b.attachments(c.Description, urls)
		for _, a := range planeList(r.get("Attachment Links")) {
			b.skip(fmt.Sprintf("attachment %s of work item %s", a, key),
				"Plane's export names only a path on its own server, not the file")
		}
		assignee := ""
		names := planeList(r.get("Assignees", "Assignee"))
		for _, a := range names {
			if strings.Contains(a, "@") && assignee == "" {
				assignee = a
			} else if !strings.Contains(a, "@") {
				b.skip(fmt.Sprintf("assignee %q of work item %s", a, key),
					"Plane's export names assignees, not their e-mail, to match a workspace member")
			}
		}
		if len(names) > 1 {
			b.p.Warnings = append(b.p.Warnings, fmt.Sprintf("work item %s has %d assignees: a card has one", key,
				len(names)))
		}
		if !b.card(key, c, assignee) {
			continue
		}
		if parent := r.get("Parent"); parent != "" {
			links = append(links, link{from: parent, to: key, typ: "parent_of"})
		}
		if cell := r.get("Relations"); cell != "" && cell != "{}" {
			var rels map[string]json.RawMessage
			if err := json.Unmarshal([]byte(cell), &rels); err != nil {
				b.skip(fmt.Sprintf("the relations of work item %s", key), "the Relations cell is not Plane's JSON object")
			}
			for _, kind := range slices.Sorted(func(yield func(string) bool) {
				for k := range rels {
					if !yield(k) {
						return
					}
				}
			}) {
				var targets []string
				var one string
				if json.Unmarshal(rels[kind], &one) == nil {
					targets = []string{one}
				} else {
					_ = json.Unmarshal(rels[kind], &targets)
				}
				m, ok := planeRelations[kind]
				if !ok {
					m.typ = "related_to"
				}
				for _, to := range targets {
					switch {
					case m.reverse:
						links = append(links, link{from: to, to: key, typ: m.typ})
					case m.typ == "related_to" || m.typ == "duplicates": // listed on both: once
						links = append(links, link{from: min(key, to), to: max(key, to), typ: m.typ})
					default:
						links = append(links, link{from: key, to: to, typ: m.typ})
					}
				}
			}
		}
	}
	for _, l := range links {
		b.relation(l.from, l.to, l.typ)
	}
	return b.done()
}
