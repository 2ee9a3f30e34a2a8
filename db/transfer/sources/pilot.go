package sources

// Pilot's own export (GET …/projects/{projectId}/export): the transfer document itself.

import (
	"encoding/json"

	"github.com/pilot-dev/pilot/db/transfer"
)

func parsePilot(data []byte) (Export, error) {
	var doc transfer.TransferDoc
	if err := json.Unmarshal(data, &doc); err != nil {
		return Export{}, unreadable("not a Pilot project export (JSON): %v", err)
	}
	if doc.Project.Name == "" && len(doc.Columns) == 0 {
		return Export{}, unreadable("not a Pilot project export: no project name or columns")
	}
	return Export{Projects: []Project{{Doc: doc}}}, nil
}
