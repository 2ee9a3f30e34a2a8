package mission

import "slices"

// ProposalStatus is where an agent's proposed action stands: pending until a person approves (it is
// applied) or rejects it.
type ProposalStatus string

// The proposal statuses.
const (
	ProposalPending  ProposalStatus = "pending"
	ProposalApproved ProposalStatus = "approved"
	ProposalRejected ProposalStatus = "rejected"
)

// ProposalStatuses lists every proposal status.
var ProposalStatuses = []ProposalStatus{ProposalPending, ProposalApproved, ProposalRejected}

// Values lists the valid proposal statuses (the OpenAPI document's enum).
func (ProposalStatus) Values() []ProposalStatus { return ProposalStatuses }

// Valid says whether s is one of ProposalStatuses.
func (s ProposalStatus) Valid() bool { return slices.Contains(ProposalStatuses, s) }
