package sources

// Trello's board export (Menu → Print, export and share → Export as JSON): one board, its lists, cards,
// labels, checklists, members and actions, of which the `commentCard` ones are the comments.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/pilot-dev/pilot/db/transfer"
)

type trelloList struct {
	ID     string  `json:"id"`
	Name   string  `json:"name"`
	Closed bool    `json:"closed"`
	Pos    float64 `json:"pos"`
}

type trelloCard struct {
	ID          string   `json:"id"`
	Name        string   `json:"name"`
	Desc        string   `json:"desc"`
	IDList      string   `json:"idList"`
	Closed      bool     `json:"closed"`
	Due         string   `json:"due"`
	Start       string   `json:"start"`
	IDLabels    []string `json:"idLabels"`
	IDMembers   []string `json:"idMembers"`
	Pos         float64  `json:"pos"`
	Attachments []struct {
		Name string `json:"name"`
		URL  string `json:"url"`
	} `json:"attachments"`
}

type trelloCheckItem struct {
	Name  string  `json:"name"`
	State string  `json:"state"`
	Pos   float64 `json:"pos"`
}

type trelloBoard struct {
	Name   string       `json:"name"`
	Desc   string       `json:"desc"`
	Closed bool         `json:"closed"`
	Lists  []trelloList `json:"lists"`
	Cards  []trelloCard `json:"cards"`
	Labels []struct {
		ID    string  `json:"id"`
		Name  string  `json:"name"`
		Color *string `json:"color"`
	} `json:"labels"`
	Checklists []struct {
		ID         string            `json:"id"`
		IDCard     string            `json:"idCard"`
		Name       string            `json:"name"`
		Pos        float64           `json:"pos"`
		CheckItems []trelloCheckItem `json:"checkItems"`
	} `json:"checklists"`
	Members []struct {
		ID       string `json:"id"`
		Username string `json:"username"`
		FullName string `json:"fullName"`
		Email    string `json:"email"`
	} `json:"members"`
	Actions []struct {
		Type string `json:"type"`
		Date string `json:"date"`
		Data struct {
			Text string `json:"text"`
			Card struct {
				ID string `json:"id"`
			} `json:"card"`
		} `json:"data"`
		MemberCreator struct {
			Username string `json:"username"`
			FullName string `json:"fullName"`
		} `json:"memberCreator"`
	} `json:"actions"`
}

// trelloColors are Trello's label colours (and their _light and _dark shades, read as the colour).
var trelloColors = map[string]string{
	"green": "#61bd4f", "yellow": "#f2d600", "orange": "#ff9f1a", "red": "#eb5a46", "purple": "#c377e0",
	"blue": "#0079bf", "sky": "#00c2e0", "lime": "#51e898", "pink": "#ff78cb", "black": "#344563",
}

func trelloColor(c *string) (name, hex string) {
	if c == nil || *c == "" {
		return "", "#b3bac5"
	}
	name = *c
	for _, suffix := range []string{"_light", "_dark"} {
		if n, ok := bytes.CutSuffix([]byte(name), []byte(suffix)); ok {
			name = string(n)
		}
	}
	if hex, ok := trelloColors[name]; ok {
		return name, hex
	}
	return name, "#b3bac5"
}

func parseTrello(data []byte) (Export, error) {
	var tb trelloBoard
	if err := json.Unmarshal(data, &tb); err != nil {
		return Export{}, unreadable("not a Trello board export (JSON): %v", err)
	}
	if tb.Name == "" && len(tb.Lists) == 0 && len(tb.Cards) == 0 {
		return Export{}, unreadable("not a Trello board export: no name, lists or cards")
	}
	b := newBuilder(tb.Name, tb.Desc)

	lists := slices.Clone(tb.Lists)
	slices.SortStableFunc(lists, func(a, c trelloList) int {
		return cmpFloat(a.Pos, c.Pos)
	})
	closedList := map[string]bool{}
	for _, l := range lists {
		name := l.Name
		if l.Closed {
			name += " (archived)"
			closedList[l.ID] = true
		}
		b.column(l.ID, name)
	}
	labels := map[string]string{}
	for _, l := range tb.Labels {
		colorName, hex := trelloColor(l.Color)
		name := l.Name
		if name == "" {
			name = colorName
		}
		if name == "" {
			name = "label"
		}
		labels[l.ID] = b.label(name, hex)
	}
	emails := map[string]string{}
	for _, m := range tb.Members {
		if m.Email != "" {
			emails[m.ID] = m.Email
		}
	}
	type checklist struct {
		name  string
		pos   float64
		items []transfer.TransferChecklistItem
	}
	checklists := map[string][]checklist{}
	for _, cl := range tb.Checklists {
		items := slices.Clone(cl.CheckItems)
		slices.SortStableFunc(items, func(a, c trelloCheckItem) int {
			return cmpFloat(a.Pos, c.Pos)
		})
		c := checklist{name: cl.Name, pos: cl.Pos}
		for _, it := range items {
			c.items = append(c.items, transfer.TransferChecklistItem{Title: it.Name, Done: it.State == "complete"})
		}
		checklists[cl.IDCard] = append(checklists[cl.IDCard], c)
	}
	comments := map[string][]transfer.TransferComment{}
	for _, a := range tb.Actions {
		if a.Type != "commentCard" {
			continue
		}
		cm := transfer.TransferComment{Content: a.Data.Text, CreatedAt: parseTime(a.Date, time.RFC3339Nano)}
		if who := a.MemberCreator.FullName; who != "" {
			cm.Content = who + ": " + cm.Content
		}
		comments[a.Data.Card.ID] = append(comments[a.Data.Card.ID], cm)
	}

	cards := slices.Clone(tb.Cards)
	slices.SortStableFunc(cards, func(a, c trelloCard) int {
		return cmpFloat(a.Pos, c.Pos)
	})
	noEmail := map[string]bool{}
	for _, c := range cards {
		col, ok := b.cols[c.IDList]
		if !ok {
			b.skip(fmt.Sprintf("card %q", c.Name), "its list is not in the export")
			continue
		}
		tc := transfer.TransferCard{Title: c.Name, ColumnIndex: col, Archived: c.Closed || closedList[c.IDList],
			DueDate: parseTime(c.Due, time.RFC3339Nano), StartDate: parseTime(c.Start, time.RFC3339Nano),
			Comments: comments[c.ID]}
		var links [][2]string
		for _, a := range c.Attachments {
			if a.URL == "" {
				b.skip(fmt.Sprintf("attachment %q of card %q", a.Name, c.Name), "it has no address")
				continue
			}
			links = append(links, [2]string{a.Name, a.URL})
		}
		tc.Description = b.attachments(c.Desc, links)
		for _, l := range c.IDLabels {
			if n := labels[l]; n != "" && !slices.Contains(tc.Labels, n) {
				tc.Labels = append(tc.Labels, n)
			}
		}
		cls := checklists[c.ID]
		slices.SortStableFunc(cls, func(a, c checklist) int { return cmpFloat(a.pos, c.pos) })
		for _, cl := range cls {
			for _, it := range cl.items {
				if len(cls) > 1 && cl.name != "" {
					it.Title = cl.name + ": " + it.Title
				}
				tc.Checklist = append(tc.Checklist, it)
			}
		}
		assignee := ""
		for _, m := range c.IDMembers {
			if e := emails[m]; e != "" && assignee == "" {
				assignee = e
			} else if e == "" {
				noEmail[m] = true
			}
		}
		if len(c.IDMembers) > 1 {
			b.p.Warnings = append(b.p.Warnings, fmt.Sprintf("card %q has %d members: a card has one assignee", c.Name,
				len(c.IDMembers)))
		}
		b.card(c.ID, tc, assignee)
	}
	for _, m := range tb.Members {
		if noEmail[m.ID] {
			b.skip(fmt.Sprintf("member %s (%s) as assignee", m.Username, m.FullName),
				"a Trello export carries no e-mail to match a workspace member")
		}
	}
	return Export{Projects: []Project{b.done()}}, nil
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
