package sources

// Jira's CSV export (Filters → Export → CSV, all fields): one row per issue, columns found by their
// English header names. Status becomes the column, sub-tasks and issue links relations.

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/pilot-dev/pilot/db/transfer"
)

// jiraRequired are the headers a Jira CSV must have.
var jiraRequired = []string{"Summary", "Issue key", "Status"}

var jiraDateLayouts = []string{"02/Jan/06 3:04 PM", "2/Jan/06 3:04 PM", "02/Jan/06", "2/Jan/06", "2006-01-02 15:04",
	"2006-01-02T15:04:05.000-0700", "2006-01-02", "02/01/2006 15:04", "02/01/2006", "1/2/2006 15:04", "1/2/2006"}

// jiraCommentRe splits a comment cell: "<date>;<author>;<text>".
var jiraCommentRe = regexp.MustCompile(`(?s)^(\d{1,2}/\w{3}/\d{2,4} \d{1,2}:\d{2} [AP]M|\d{4}-\d{2}-\d{2}[^;]*)` +
	`;([^;]*);(.*)$`)

// jiraLinkTypes map an outward link's name to a relation; inward links are the same links seen from
// the other side, so only outward ones are read.
var jiraLinkTypes = map[string]string{"blocks": "blocks", "relates": "related_to", "duplicate": "duplicates",
	"cloners": "related_to", "parent": "parent_of"}

var jiraPriorities = map[string]string{"highest": "high", "high": "high", "critical": "high", "blocker": "high",
	"major": "high", "medium": "medium", "normal": "medium", "low": "low", "lowest": "low", "minor": "low",
	"trivial": "low"}

var jiraCategoryOrder = map[string]int{"to do": 0, "new": 0, "in progress": 1, "indeterminate": 1, "done": 2}

func parseJira(data []byte) (Export, error) {
	t, err := readCSV(data)
	if err != nil {
		return Export{}, err
	}
	if m := t.missing(jiraRequired...); len(m) > 0 {
		return Export{}, unreadable("not a Jira CSV export: missing the column(s) %s", strings.Join(m, ", "))
	}
	type proj struct {
		key, name string
		rows      [][]string
	}
	var projects []*proj
	byKey := map[string]*proj{}
	for _, row := range t.rows {
		key := t.get(row, "Project key")
		p := byKey[key]
		if p == nil {
			p = &proj{key: key, name: cmp.Or(t.get(row, "Project name"), key, "Jira import")}
			byKey[key] = p
			projects = append(projects, p)
		}
		p.rows = append(p.rows, row)
	}
	var out Export
	for _, p := range projects {
		out.Projects = append(out.Projects, jiraProject(t, p.name, p.rows))
	}
	if len(out.Projects) == 0 {
		return out, unreadable("the file has no issues")
	}
	return out, nil
}

func jiraProject(t *csvTable, name string, rows [][]string) Project {
	b := newBuilder(name, "")
	// Columns: the statuses, by category when the export has it (to do, in progress, done), then as met.
	type status struct {
		name  string
		order int
		first int
	}
	var statuses []status
	seen := map[string]bool{}
	for i, row := range rows {
		s := cmp.Or(t.get(row, "Status"), "No status")
		if seen[s] {
			continue
		}
		seen[s] = true
		order, ok := jiraCategoryOrder[strings.ToLower(t.get(row, "Status Category"))]
		if !ok {
			order = 1
		}
		statuses = append(statuses, status{name: s, order: order, first: i})
	}
	slices.SortStableFunc(statuses, func(a, c status) int { return cmp.Compare(a.order, c.order) })
	for _, s := range statuses {
		b.column(s.name, s.name)
	}
	idToKey := map[string]string{}
	for _, row := range rows {
		if id := t.get(row, "Issue id"); id != "" {
			idToKey[id] = t.get(row, "Issue key")
		}
	}
	type link struct{ from, to, typ string }
	var links []link
	for _, row := range rows {
		key := t.get(row, "Issue key")
		title := t.get(row, "Summary")
		col, ok := b.cols[cmp.Or(t.get(row, "Status"), "No status")]
		if !ok {
			b.skip(fmt.Sprintf("issue %s", key), "its status has no column")
			continue
		}
		c := transfer.TransferCard{Title: title, ColumnIndex: col, Description: t.get(row, "Description"),
			Priority: jiraPriorities[strings.ToLower(t.get(row, "Priority"))],
			DueDate:  parseTime(t.get(row, "Due date", "Due"), jiraDateLayouts...)}
		if key != "" && title != "" {
			c.Title = key + " " + title
		}
		for _, l := range t.all(row, "Labels") {
			for _, one := range strings.Fields(l) {
				if n := b.label(one, "#4c9aff"); n != "" && !slices.Contains(c.Labels, n) {
					c.Labels = append(c.Labels, n)
				}
			}
		}
		for _, cell := range t.all(row, "Comment") {
			cm := transfer.TransferComment{Content: cell}
			if m := jiraCommentRe.FindStringSubmatch(cell); m != nil {
				cm.CreatedAt = parseTime(m[1], jiraDateLayouts...)
				cm.Content = m[3]
			}
			c.Comments = append(c.Comments, cm)
		}
		var links2 [][2]string
		for _, a := range t.all(row, "Attachment") {
			// "<date>;<author>;<name>;<url>"
			parts := strings.Split(a, ";")
			if len(parts) >= 4 {
				links2 = append(links2, [2]string{parts[2], parts[len(parts)-1]})
			} else {
				b.skip(fmt.Sprintf("an attachment of issue %s", key), "it has no address")
			}
		}
		c.Description = b.attachments(c.Description, links2)
		assignee := ""
		for _, h := range []string{"Assignee", "Assignee Email", "Assignee email address", "Assignee Id"} {
			if v := t.get(row, h); strings.Contains(v, "@") {
				assignee = v
				break
			}
		}
		if assignee == "" && t.get(row, "Assignee") != "" {
			b.skip(fmt.Sprintf("assignee %q of issue %s", t.get(row, "Assignee"), key),
				"the export names no e-mail to match a workspace member")
		}
		if !b.card(key, c, assignee) {
			continue
		}
		if parent := t.get(row, "Parent id", "Parent", "Parent key"); parent != "" {
			links = append(links, link{from: cmp.Or(idToKey[parent], parent), to: key, typ: "parent_of"})
		}
		for name, targets := range t.prefixed(row, "outward issue link (") {
			typ, ok := jiraLinkTypes[strings.TrimSuffix(name, ")")]
			if !ok {
				typ = "related_to"
			}
			for _, to := range targets {
				links = append(links, link{from: key, to: strings.TrimSpace(to), typ: typ})
			}
		}
	}
	for _, l := range links {
		b.relation(l.from, l.to, l.typ)
	}
	return b.done()
}
