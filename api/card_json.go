package api

import (
	"strconv"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/jackc/pgx/v5/pgtype"
	"github.com/pilot-dev/pilot/db/board"
)

// appendCardJSON writes one card of the list as CardOut's JSON, straight from the driver's buffers:
// without reflection, without a copy per field, and without re-validating the JSON parts PostgreSQL
// built (the card list is the hottest read). TestCardListJSONMatchesCardOut keeps it equal to CardOut.
func appendCardJSON(buf []byte, c *board.CardView) []byte {
	buf = append(buf, `{"id":`...)
	buf = appendJSONUUID(buf, c.ID)
	buf = append(buf, `,"projectId":`...)
	buf = appendJSONUUID(buf, c.ProjectID)
	buf = append(buf, `,"columnId":`...)
	buf = appendJSONUUID(buf, c.ColumnID)
	buf = append(buf, `,"scopeId":`...)
	buf = appendJSONUUID(buf, c.ScopeID)
	buf = append(buf, `,"title":`...)
	buf = appendJSONString(buf, bytesAsString(c.Title))
	buf = append(buf, `,"description":`...)
	buf = appendJSONString(buf, bytesAsString(c.Description))
	buf = append(buf, `,"order":`...)
	buf = strconv.AppendInt(buf, c.Position, 10)
	buf = append(buf, `,"archived":`...)
	buf = strconv.AppendBool(buf, c.Archived)
	buf = append(buf, `,"priority":`...)
	buf = appendJSONString(buf, bytesAsString(c.Priority))
	buf = append(buf, `,"startDate":`...)
	buf = appendJSONTimestamptz(buf, c.StartDate)
	buf = append(buf, `,"dueDate":`...)
	buf = appendJSONTimestamptz(buf, c.DueDate)
	buf = append(buf, `,"assigneeId":`...)
	buf = appendJSONUUID(buf, c.AssigneeID)
	buf = append(buf, `,"checklist":`...)
	buf = append(buf, c.Checklist...)
	buf = append(buf, `,"checklistProgress":`...)
	buf = strconv.AppendInt(buf, int64(c.ChecklistProgress), 10)
	buf = append(buf, `,"labels":`...)
	buf = append(buf, c.Labels...)
	buf = append(buf, `,"customFields":`...)
	buf = append(buf, c.CustomFields...)
	buf = append(buf, `,"commentCount":`...)
	buf = strconv.AppendInt(buf, int64(c.CommentCount), 10)
	buf = append(buf, `,"attachmentCount":`...)
	buf = strconv.AppendInt(buf, int64(c.AttachmentCount), 10)
	buf = append(buf, `,"estimateSeconds":`...)
	if c.EstimateSeconds.Valid {
		buf = strconv.AppendInt(buf, int64(c.EstimateSeconds.Int32), 10)
	} else {
		buf = append(buf, "null"...)
	}
	buf = append(buf, `,"timeSpentSeconds":`...)
	buf = strconv.AppendInt(buf, c.TimeSpentSeconds, 10)
	buf = append(buf, `,"createdBy":`...)
	buf = appendJSONUUID(buf, c.CreatedBy)
	buf = append(buf, `,"createdAt":`...)
	buf = appendJSONTime(buf, c.CreatedAt)
	buf = append(buf, `,"updatedAt":`...)
	buf = appendJSONTime(buf, c.UpdatedAt)
	return append(buf, '}')
}

// bytesAsString views b as a string without copying, for appending only: the string must not outlive
// b's buffer.
func bytesAsString(b []byte) string {
	// G103: audited; the busiest read's copy-free path, with the lifetime rule above.
	return unsafe.String(unsafe.SliceData(b), len(b)) //nolint:gosec // see above
}

// appendJSONUUID writes a UUID in its canonical lower-case form, or null.
func appendJSONUUID(buf []byte, u pgtype.UUID) []byte {
	if !u.Valid {
		return append(buf, "null"...)
	}
	buf = append(buf, '"')
	for i, b := range u.Bytes {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			buf = append(buf, '-')
		}
		buf = append(buf, hexDigits[b>>4], hexDigits[b&0xf])
	}
	return append(buf, '"')
}

func appendJSONTimestamptz(buf []byte, t pgtype.Timestamptz) []byte {
	if !t.Valid {
		return append(buf, "null"...)
	}
	return appendJSONTime(buf, t.Time)
}

func appendJSONTime(buf []byte, t time.Time) []byte {
	buf = append(buf, '"')
	buf = t.AppendFormat(buf, time.RFC3339Nano)
	return append(buf, '"')
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
