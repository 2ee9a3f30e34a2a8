package api

import (
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/pilot-dev/pilot/db"
)

// appendCardsJSON writes cards as the JSON array of CardOut, without reflection and without
// re-validating the JSON parts PostgreSQL built (the card list is the hottest read; encoding/json spent
// most of its time re-checking those parts). TestCardListJSONMatchesCardOut keeps it equal to CardOut.
func appendCardsJSON(buf []byte, rows []db.CardRow, keep func(db.CardRow) bool) []byte {
	buf = append(buf, '[')
	first := true
	for _, c := range rows {
		if !keep(c) {
			continue
		}
		if !first {
			buf = append(buf, ',')
		}
		first = false
		buf = append(buf, `{"id":`...)
		buf = appendJSONString(buf, c.ID)
		buf = append(buf, `,"projectId":`...)
		buf = appendJSONString(buf, c.ProjectID)
		buf = append(buf, `,"columnId":`...)
		buf = appendJSONString(buf, c.ColumnID)
		buf = append(buf, `,"scopeId":`...)
		buf = appendJSONStringPtr(buf, c.ScopeID)
		buf = append(buf, `,"title":`...)
		buf = appendJSONString(buf, c.Title)
		buf = append(buf, `,"description":`...)
		buf = appendJSONString(buf, c.Description)
		buf = append(buf, `,"order":`...)
		buf = strconv.AppendInt(buf, c.Position, 10)
		buf = append(buf, `,"archived":`...)
		buf = strconv.AppendBool(buf, c.Archived)
		buf = append(buf, `,"priority":`...)
		buf = appendJSONString(buf, c.Priority)
		buf = append(buf, `,"startDate":`...)
		buf = appendJSONTimePtr(buf, c.StartDate)
		buf = append(buf, `,"dueDate":`...)
		buf = appendJSONTimePtr(buf, c.DueDate)
		buf = append(buf, `,"assigneeId":`...)
		buf = appendJSONStringPtr(buf, c.AssigneeID)
		buf = append(buf, `,"checklist":`...)
		buf = append(buf, c.PartsChecklist...)
		buf = append(buf, `,"checklistProgress":`...)
		buf = strconv.AppendInt(buf, int64(c.PartsProgress), 10)
		buf = append(buf, `,"labels":`...)
		buf = append(buf, c.PartsLabels...)
		buf = append(buf, `,"customFields":`...)
		buf = append(buf, c.PartsFields...)
		buf = append(buf, `,"commentCount":`...)
		buf = strconv.AppendInt(buf, int64(c.CommentCount), 10)
		buf = append(buf, `,"attachmentCount":`...)
		buf = strconv.AppendInt(buf, int64(c.AttachmentCount), 10)
		buf = append(buf, `,"createdBy":`...)
		buf = appendJSONString(buf, c.CreatedBy)
		buf = append(buf, `,"createdAt":`...)
		buf = appendJSONTime(buf, c.CreatedAt)
		buf = append(buf, `,"updatedAt":`...)
		buf = appendJSONTime(buf, c.UpdatedAt)
		buf = append(buf, '}')
	}
	return append(buf, ']')
}

func appendJSONTime(buf []byte, t time.Time) []byte {
	buf = append(buf, '"')
	buf = t.AppendFormat(buf, time.RFC3339Nano)
	return append(buf, '"')
}

func appendJSONTimePtr(buf []byte, t *time.Time) []byte {
	if t == nil {
		return append(buf, "null"...)
	}
	return appendJSONTime(buf, *t)
}

func appendJSONStringPtr(buf []byte, s *string) []byte {
	if s == nil {
		return append(buf, "null"...)
	}
	return appendJSONString(buf, *s)
}

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as a JSON string, escaping as encoding/json does (quotes, backslashes,
// control characters, <, >, &, U+2028/2029; invalid UTF-8 becomes U+FFFD).
func appendJSONString(buf []byte, s string) []byte {
	buf = append(buf, '"')
	start := 0
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' && b != '<' && b != '>' && b != '&' {
				i++
				continue
			}
			buf = append(buf, s[start:i]...)
			switch b {
			case '"', '\\':
				buf = append(buf, '\\', b)
			case '\n':
				buf = append(buf, '\\', 'n')
			case '\r':
				buf = append(buf, '\\', 'r')
			case '\t':
				buf = append(buf, '\\', 't')
			default:
				buf = append(buf, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			buf = append(buf, s[start:i]...)
			buf = append(buf, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			buf = append(buf, s[start:i]...)
			buf = append(buf, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	buf = append(buf, s[start:]...)
	return append(buf, '"')
}
