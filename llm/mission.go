package llm

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// maxRenderedComments bounds how many of a card's latest comments are shown to a model.
const maxRenderedComments = 20

// maxRenderedCommentRunes bounds the length of one comment shown to a model.
const maxRenderedCommentRunes = 1000

// Render returns the mission as readable text for a model: the objective, then the card's title,
// column, priority, due date, labels, description, checklist and latest comments. It is sent to
// remote models as a user message.
func (m *MissionContext) Render() string {
	if m == nil {
		return ""
	}
	var b strings.Builder
	if m.Objective != "" {
		fmt.Fprintf(&b, "Mission objective: %s\n", m.Objective)
	}
	c := m.Card
	if c == nil {
		return strings.TrimRight(b.String(), "\n")
	}
	if b.Len() > 0 {
		b.WriteString("\n")
	}
	if c.ID != "" {
		fmt.Fprintf(&b, "Card %s: %q\n", c.ID, c.Title)
	} else {
		fmt.Fprintf(&b, "Card: %q\n", c.Title)
	}
	if c.Column != "" {
		fmt.Fprintf(&b, "Column: %s\n", c.Column)
	}
	if c.Priority != "" {
		fmt.Fprintf(&b, "Priority: %s\n", c.Priority)
	}
	if c.DueDate != nil {
		fmt.Fprintf(&b, "Due: %s\n", formatDue(*c.DueDate))
	}
	if len(c.Labels) > 0 {
		fmt.Fprintf(&b, "Labels: %s\n", strings.Join(c.Labels, ", "))
	}
	if d := strings.TrimSpace(c.Description); d != "" {
		fmt.Fprintf(&b, "Description:\n%s\n", d)
	} else {
		b.WriteString("Description: (none)\n")
	}
	if len(c.Checklist) > 0 {
		done := 0
		for _, it := range c.Checklist {
			if it.Done {
				done++
			}
		}
		fmt.Fprintf(&b, "Checklist (%d of %d done):\n", done, len(c.Checklist))
		for _, it := range c.Checklist {
			mark := " "
			if it.Done {
				mark = "x"
			}
			fmt.Fprintf(&b, "- [%s] %s\n", mark, it.Title)
		}
	} else {
		b.WriteString("Checklist: (empty)\n")
	}
	if len(c.Comments) > 0 {
		comments := c.Comments
		b.WriteString("Comments (oldest first):\n")
		if len(comments) > maxRenderedComments {
			fmt.Fprintf(&b, "(%d earlier comments omitted)\n", len(comments)-maxRenderedComments)
			comments = comments[len(comments)-maxRenderedComments:]
		}
		for _, cm := range comments {
			fmt.Fprintf(&b, "- %s\n", truncateRunes(strings.TrimSpace(cm), maxRenderedCommentRunes))
		}
	} else {
		b.WriteString("Comments: (none)\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// formatDue renders a due date as a day when it has no time of day, else as RFC 3339 in UTC.
func formatDue(t time.Time) string {
	t = t.UTC()
	if t.Hour() == 0 && t.Minute() == 0 && t.Second() == 0 && t.Nanosecond() == 0 {
		return t.Format(time.DateOnly)
	}
	return t.Format(time.RFC3339)
}

// truncateRunes shortens s to at most n runes, marking a cut with "…".
func truncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimRightFunc(string(r[:n-1]), isSpace) + "…"
}

func isSpace(r rune) bool { return r == ' ' || r == '\t' || r == '\n' || r == '\r' }
