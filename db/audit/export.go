package audit

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/internal/dbsqlc"
	"github.com/pilot-dev/pilot/internal/csvcell"
)

// Format is an export's format.
type Format string

// The export formats.
const (
	JSONLines Format = "jsonl"
	CSV       Format = "csv"
)

// Formats lists the export formats.
var Formats = []Format{JSONLines, CSV}

// Values lists the export formats (the OpenAPI document's enum).
func (Format) Values() []Format { return Formats }

// Line is an entry as an export writes it: one JSON object per line, or one CSV row of the same fields
// in this order (changes as its JSON text).
type Line struct {
	ID             string          `json:"id"`
	At             time.Time       `json:"at"`
	Kind           db.AuditKind    `json:"kind"`
	OrganizationID string          `json:"organizationId"`
	WorkspaceID    string          `json:"workspaceId"`
	ActorID        string          `json:"actorId"`
	ActorEmail     string          `json:"actorEmail"`
	ClientIP       string          `json:"clientIp"`
	UserAgent      string          `json:"userAgent"`
	TargetType     string          `json:"targetType"`
	TargetID       string          `json:"targetId"`
	TargetName     string          `json:"targetName"`
	Changes        json.RawMessage `json:"changes"`
}

// CSVHeader is the first row of a CSV export.
var CSVHeader = []string{"id", "at", "kind", "organizationId", "workspaceId", "actorId", "actorEmail", "clientIp",
	"userAgent", "targetType", "targetId", "targetName", "changes"}

// LineOf is r as an export writes it.
func LineOf(r db.AuditLog) Line {
	return Line{ID: r.ID, At: r.At.UTC(), Kind: db.AuditKind(r.Kind), OrganizationID: deref(r.OrganizationID),
		WorkspaceID: deref(r.WorkspaceID), ActorID: deref(r.ActorID), ActorEmail: r.ActorEmail, ClientIP: r.ClientIP,
		UserAgent: r.UserAgent, TargetType: r.TargetType, TargetID: r.TargetID, TargetName: r.TargetName,
		Changes: r.Changes}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// record is l as a CSV row, what people and clients typed (an address, a user agent, a target's name) made
// safe to open in a spreadsheet (csvcell.Safe).
func (l Line) record() []string {
	return []string{l.ID, l.At.Format(time.RFC3339Nano), string(l.Kind), l.OrganizationID, l.WorkspaceID, l.ActorID,
		csvcell.Safe(l.ActorEmail), l.ClientIP, csvcell.Safe(l.UserAgent), l.TargetType, l.TargetID,
		csvcell.Safe(l.TargetName), string(l.Changes)}
}

// exportBatch is how many entries an export reads per query.
const exportBatch = 1000

// Export writes every entry of an organization matching f to w in format, newest first, reading them in
// one snapshot a batch at a time (never the whole log in memory).
func (e *Engine) Export(ctx context.Context, orgID string, f Filter, format Format, w io.Writer) error {
	var write func(Line) error
	switch format {
	case JSONLines:
		enc := json.NewEncoder(w)
		write = func(l Line) error { return enc.Encode(l) }
	case CSV:
		cw := csv.NewWriter(w)
		if err := cw.Write(CSVHeader); err != nil {
			return err
		}
		write = func(l Line) error {
			if err := cw.Write(l.record()); err != nil {
				return err
			}
			cw.Flush()
			return cw.Error()
		}
	default:
		return fmt.Errorf("audit: unknown export format %q", format)
	}
	return e.core.InSnapshot(ctx, func(q *dbsqlc.Queries) error {
		after, err := db.Page{}.AfterTime(orgList, true)
		if err != nil {
			return err
		}
		for {
			rows, err := e.listOrg(ctx, q, orgID, f, after, exportBatch)
			if err != nil {
				return err
			}
			for _, r := range rows {
				if err := write(LineOf(r)); err != nil {
					return err
				}
			}
			if len(rows) < exportBatch {
				return nil
			}
			last := rows[len(rows)-1]
			after = db.TimeKey{At: last.At, ID: last.ID}
		}
	})
}
