package api

import (
	"context"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/draft"
	"github.com/pilot-dev/pilot/internal/stream"
)

// DefaultDraftWait is how long refine and generate-roadmap wait for their job before answering 202.
const DefaultDraftWait = 5 * time.Second

// DraftDocumentIn is a context document: a document of the workspace `{documentId}`, or inline
// `{title, content}`; its content feeds the model.
type DraftDocumentIn struct {
	DocumentID string `json:"documentId,omitempty" format:"uuid" doc:"A document of the workspace: its title and text are copied into the draft when it is created. Give either documentId or title and content"`
	Title      string `json:"title,omitempty" maxLength:"200" doc:"Inline document: 1 to 200 characters"`
	Content    string `json:"content,omitempty" maxLength:"50000" doc:"Inline document: at most 50,000 characters"`
}

// DraftMemberIn is a person of the draft's team.
type DraftMemberIn struct {
	Name  string `json:"name" required:"true" minLength:"1" maxLength:"100" doc:"1 to 100 characters"`
	Role  string `json:"role,omitempty" maxLength:"100" doc:"At most 100 characters, e.g. \"designer\""`
	Email string `json:"email,omitempty" maxLength:"254" doc:"When it is a workspace member's e-mail, execute adds that member to the project"`
}

// DraftAnswerIn answers one of the draft's pending questions.
type DraftAnswerIn struct {
	Question string `json:"question" required:"true" minLength:"1" maxLength:"500" doc:"One of the draft's current questions, as given"`
	Answer   string `json:"answer" required:"true" minLength:"1" maxLength:"2000" doc:"1 to 2,000 characters"`
}

// DraftOut is a project draft as read.
type DraftOut struct {
	ID               string                `json:"id"`
	WorkspaceID      string                `json:"workspaceId"`
	Name             string                `json:"name"`
	Description      string                `json:"description"`
	ContextDocuments []draft.DraftDocument `json:"contextDocuments"`
	TeamMembers      []draft.DraftMember   `json:"teamMembers"`
	Status           string                `json:"status" enum:"framing,refining,refined,generating,roadmap_ready,executed,failed"`
	Questions        []string              `json:"questions" doc:"The current round's questions, to answer with refine (empty when none are pending)"`
	Answers          []draft.DraftAnswer   `json:"answers" doc:"Every question answered so far, oldest first"`
	Round            int32                 `json:"round" doc:"Refinement rounds completed (at most 4)"`
	Roadmap          *draft.DraftRoadmap   `json:"roadmap" doc:"The phased roadmap once generated (null before)"`
	ProjectID        *string               `json:"projectId" nullable:"true" doc:"The project execute made"`
	Error            *string               `json:"error" nullable:"true" doc:"Why the last job failed (status failed)"`
	CreatedBy        string                `json:"createdBy"`
	CreatedAt        time.Time             `json:"createdAt"`
	UpdatedAt        time.Time             `json:"updatedAt"`
	ExecutedAt       *time.Time            `json:"executedAt" nullable:"true"`
}

func draftOut(d draft.Draft) DraftOut {
	return DraftOut{ID: d.ID, WorkspaceID: d.WorkspaceID, Name: d.Name, Description: d.Description,
		ContextDocuments: d.ContextDocuments, TeamMembers: d.TeamMembers, Status: d.Status, Questions: d.Questions,
		Answers: d.Answers, Round: d.Rounds, Roadmap: d.Roadmap, ProjectID: d.ProjectID, Error: d.Error,
		CreatedBy: d.CreatedBy, CreatedAt: d.CreatedAt, UpdatedAt: d.UpdatedAt, ExecutedAt: d.ExecutedAt}
}

// DraftPath names a draft.
type DraftPath struct {
	WorkspacePath
	DraftID string `path:"draftId" format:"uuid"`
}

const draftsDoc = "A draft goes framing → refining → refined (questions ready; refine again with answers, at most 4 " +
	"rounds of at most 5 questions) → generating → roadmap_ready → executed, or failed with `error`. Refinement and " +
	"roadmap generation run as jobs on the workers; their progress (and the roadmap's tokens as it is written) is the " +
	"draft's event stream, `GET …/project-drafts/{draftId}/events`."

// registerDrafts registers project drafts.
func (s agentOps) registerDrafts() {
	tags := []string{"Project drafts"}
	path := pathWorkspace + "/project-drafts"
	// 202 answers the draft as 200 does, in its refining or generating state (a map per operation: huma adds
	// the operation's other responses to it).
	draftSchema := s.api.OpenAPI().Components.Schemas.Schema(reflect.TypeFor[DraftOut](), true, "")
	stepResponses := func() map[string]*huma.Response {
		return map[string]*huma.Response{"202": {Description: "The job is still running: the draft in its refining or " +
			"generating state; follow `…/events` or read the draft later",
			Content: map[string]*huma.MediaType{"application/json": {Schema: draftSchema}}}}
	}

	register(s.Server, huma.Operation{OperationID: "project-drafts-create", Method: http.MethodPost, Path: path,
		Summary: "Create a project draft", Tags: tags, DefaultStatus: http.StatusCreated,
		Description: "`name` 1–200 characters; `description` at most 10,000; `contextDocuments` at most 10 inline " +
			"documents `{title, content}` (title 1–200, content at most 50,000 characters); `teamMembers` at most 50 `{name, " +
			"role, email?}` (name 1–100, role at most 100). A draft starts in framing. " + draftsDoc},
		projectWrite, s.createDraft)

	register(s.Server, huma.Operation{OperationID: "project-drafts-list", Method: http.MethodGet, Path: path,
		Summary: "List the workspace's project drafts, newest first", Tags: tags},
		projectRead, s.listDrafts)

	register(s.Server, huma.Operation{OperationID: "project-drafts-get", Method: http.MethodGet, Path: path + "/{draftId}",
		Summary: "Get a project draft", Tags: tags},
		projectRead, s.getDraft)

	register(s.Server, huma.Operation{OperationID: "project-drafts-delete", Method: http.MethodDelete,
		Path: path + "/{draftId}", Summary: "Delete a project draft", Tags: tags,
		Description: "Deletes the draft and its event stream in any state (a running job finds it gone and stops). The " +
			"project an executed draft made stays."},
		projectWrite, s.deleteDraft)

	register(s.Server, huma.Operation{OperationID: "project-drafts-refine", Method: http.MethodPost,
		Path: path + "/{draftId}/refine", Summary: "Answer the draft's questions and ask for the next round", Tags: tags,
		Errors: []int{http.StatusConflict}, Responses: stepResponses(),
		Description: "Body `{answers: [{question, answer}]}` (at most 5; each question one of the draft's current " +
			"`questions`; question at most 500, answer 1–2,000 characters; `{}` or no body on the first round). Allowed in " +
			"framing, refined and failed; records the answers and queues a refinement job, then waits up to a few seconds for " +
			"it: 200 with the refined draft (its new `questions`, none repeating an answered one) when it finished, else 202 " +
			"with the draft refining. After the 4th round the answers are recorded and 200 answers at once with no new " +
			"questions. 409 while a job runs, after a roadmap is ready, or once executed."},
		projectWrite, s.refineDraft)

	register(s.Server, huma.Operation{OperationID: "project-drafts-generate-roadmap", Method: http.MethodPost,
		Path: path + "/{draftId}/generate-roadmap", Summary: "Generate the draft's phased roadmap", Tags: tags,
		Errors: []int{http.StatusConflict}, Responses: stepResponses(), Description: "Allowed in framing, refined, " +
			"roadmap_ready (a new roadmap replaces the old) and failed. Queues the roadmap job, then waits up to a few " +
			"seconds for it: 200 with the draft and its `roadmap` {phases: [{name, goal, deliverables: [{title, " +
			"description}]}]} when ready, else 202 with the draft generating. 409 while a job runs or once executed."},
		projectWrite, s.generateDraftRoadmap)

	register(s.Server, huma.Operation{OperationID: "project-drafts-execute", Method: http.MethodPost,
		Path: path + "/{draftId}/execute", Summary: "Create the project from the draft's roadmap", Tags: tags,
		DefaultStatus: http.StatusCreated, Errors: []int{http.StatusConflict}, Description: "Once, in one transaction: the " +
			"project (named and described as the draft), a column per phase in order, a card per deliverable (with " +
			"card_created activities and notifications as any card create), and the team members whose e-mail is a workspace " +
			"member's as project members. The draft becomes executed and keeps `projectId`. 409 before the roadmap is ready, " +
			"and on a second call (naming the project made)."},
		projectWrite, s.executeDraft)

	register(s.Server, huma.Operation{OperationID: "project-drafts-edit-roadmap", Method: http.MethodPatch,
		Path: path + "/{draftId}/roadmap", Summary: "Adjust the draft's roadmap before executing it", Tags: tags,
		Errors: []int{http.StatusConflict}, Description: "Replaces the roadmap of a draft in roadmap_ready with the one " +
			"given, `{phases: [{name, goal, deliverables: [{title, description}]}]}`: 1 to 20 phases (name 1–100 " +
			"characters, goal at most 1,000), each with 0 to 50 deliverables (title 1–200, description at most 2,000); " +
			"texts are trimmed, and a phase without deliverables becomes an empty column. Phases and deliverables are " +
			"renamed, added, removed and reordered by sending the roadmap as it should be. The draft's stream gets a " +
			"`status` event with the new roadmap in `data.roadmap`. 409 before a roadmap is ready, while a job runs and " +
			"once executed."},
		projectWrite, s.editDraftRoadmap)

	register(s.Server, huma.Operation{OperationID: "project-drafts-events", Method: http.MethodGet,
		Path: path + "/{draftId}/events", Summary: "Watch a draft's jobs (server-sent events)", Tags: tags,
		Description: "A `text/event-stream` of the draft's events: each has `id` (the per-draft sequence), `event` " +
			"(status, token, done) and JSON `data` {draftId, seq, type, status, message, data, at}. `token` events carry the " +
			"model's text as the roadmap is written; `done` ends a job with the draft's new status (refined with " +
			"`data.questions`, roadmap_ready with `data.roadmap`, or failed with `data.error`), and the execution (executed " +
			"with `data.projectId`). With `Last-Event-ID`, the stream starts at the event after it. Without it, a working " +
			"draft's stream starts at its current job's first event, an executed draft's at its execution, and any other " +
			"draft's stream waits for its next event (open it, then call generate-roadmap, to watch the roadmap being " +
			"written). The stream ends after the event reporting the draft's final status, executed (right after the replay " +
			"when the draft already is); until then it stays open across jobs, refined, roadmap_ready and failed included " +
			"(each leads on). Comment lines are heartbeats.",
		Responses: map[string]*huma.Response{"200": {Description: "The event stream",
			Content: map[string]*huma.MediaType{"text/event-stream": {}}}}}, projectRead, s.watchDraft)
}

// CreateDraftInput is the request of project-drafts-create.
type CreateDraftInput struct {
	WorkspacePath
	Body CreateDraftInputBody
}

// CreateDraftInputBody is the body of a CreateDraftInput request.
type CreateDraftInputBody struct {
	Name             string            `json:"name" required:"true" minLength:"1" maxLength:"200"`
	Description      string            `json:"description,omitempty" maxLength:"10000"`
	ContextDocuments []DraftDocumentIn `json:"contextDocuments,omitempty" maxItems:"10" doc:"At most 10 context documents, each a document of the workspace {documentId} or inline {title, content}; their content feeds the model"`
	TeamMembers      []DraftMemberIn   `json:"teamMembers,omitempty" maxItems:"50"`
}

func (s agentOps) createDraft(ctx context.Context, in *CreateDraftInput) (*Output[DraftOut], error) {
	b := in.Body
	name, err := nonBlank("name", b.Name)
	if err != nil {
		return nil, err
	}
	nd := draft.NewDraft{WorkspaceID: accessFrom(ctx).WorkspaceID, ActorID: principalFrom(ctx).User.ID, Name: name,
		Description: strings.TrimSpace(b.Description)}
	for i, d := range b.ContextDocuments {
		if d.DocumentID != "" {
			if d.Title != "" || d.Content != "" {
				return nil, errBadRequest(fmt.Sprintf("contextDocuments[%d]: give either documentId or title and content, not both",
					i))
			}
			nd.ContextDocuments = append(nd.ContextDocuments, draft.DraftDocument{DocumentID: strings.ToLower(d.DocumentID)})
			continue
		}
		title, err := nonBlank(fmt.Sprintf("contextDocuments[%d].title", i), d.Title)
		if err != nil {
			return nil, err
		}
		nd.ContextDocuments = append(nd.ContextDocuments, draft.DraftDocument{Title: title, Content: d.Content})
	}
	for i, m := range b.TeamMembers {
		mname, err := nonBlank(fmt.Sprintf("teamMembers[%d].name", i), m.Name)
		if err != nil {
			return nil, err
		}
		email := strings.TrimSpace(m.Email)
		if email != "" && !strings.Contains(email, "@") {
			return nil, errBadRequest(fmt.Sprintf("teamMembers[%d].email: not an e-mail address", i))
		}
		nd.TeamMembers = append(nd.TeamMembers, draft.DraftMember{Name: mname, Role: strings.TrimSpace(m.Role), Email: email})
	}
	return oneOf(draftOut)(s.drafts.Create(ctx, nd))
}

// ListDraftsInput is the request of project-drafts-list.
type ListDraftsInput struct {
	WorkspacePath
	PageQuery
}

func (s agentOps) listDrafts(ctx context.Context, in *ListDraftsInput) (*PageOutput[DraftOut], error) {
	return pageOf(ctx, draftOut)(s.drafts.List(ctx, accessFrom(ctx).WorkspaceID, in.page()))
}

func (s agentOps) getDraft(ctx context.Context, in *DraftPath) (*Output[DraftOut], error) {
	if !isUUID(in.DraftID) {
		return nil, errNotFound("draft not found")
	}
	return oneOf(draftOut)(s.drafts.Get(ctx, accessFrom(ctx).WorkspaceID, in.DraftID))
}

func (s agentOps) deleteDraft(ctx context.Context, in *DraftPath) (*OKOutput, error) {
	if !isUUID(in.DraftID) {
		return nil, errNotFound("draft not found")
	}
	return done(s.drafts.Delete(ctx, accessFrom(ctx).WorkspaceID, in.DraftID))
}

// DraftStepOutput is the answer of refine and generate-roadmap: 200 when the job finished, 202 while
// it runs.
type DraftStepOutput struct {
	Status int
	Body   DraftOut
}

// RefineDraftInput is the request of project-drafts-refine.
type RefineDraftInput struct {
	DraftPath
	Body *struct {
		Answers []DraftAnswerIn `json:"answers,omitempty" maxItems:"5" doc:"Answers to the draft's current questions"`
	}
}

func (s agentOps) refineDraft(ctx context.Context, in *RefineDraftInput) (*DraftStepOutput, error) {
	var answers []draft.DraftAnswer
	if in.Body != nil {
		for i, a := range in.Body.Answers {
			q, err := nonBlank(fmt.Sprintf("answers[%d].question", i), a.Question)
			if err != nil {
				return nil, err
			}
			ans, err := nonBlank(fmt.Sprintf("answers[%d].answer", i), a.Answer)
			if err != nil {
				return nil, err
			}
			answers = append(answers, draft.DraftAnswer{Question: q, Answer: ans})
		}
	}
	wsID := accessFrom(ctx).WorkspaceID
	return s.draftStep(ctx, in.DraftID, func() (draft.DraftStep, error) {
		return s.drafts.Refine(ctx, wsID, in.DraftID, answers)
	})
}

func (s agentOps) generateDraftRoadmap(ctx context.Context, in *DraftPath) (*DraftStepOutput, error) {
	wsID := accessFrom(ctx).WorkspaceID
	return s.draftStep(ctx, in.DraftID, func() (draft.DraftStep, error) {
		return s.drafts.GenerateRoadmap(ctx, wsID, in.DraftID)
	})
}

// draftStep starts a draft's job and waits for it, up to Options.DraftWait, on the draft's stream: the
// job's done event commits with its result, and the relay hears it whichever process ran the job.
// The subscription is made before the job is enqueued, so the done event cannot be missed.
func (s agentOps) draftStep(ctx context.Context, draftID string, start func() (draft.DraftStep,
	error)) (*DraftStepOutput, error) {
	if !isUUID(draftID) {
		return nil, errNotFound("draft not found")
	}
	sub, subErr := s.opts.Relay.Subscribe(ctx, draftID)
	if subErr == nil {
		defer sub.Close()
	} else {
		s.logger.WarnContext(ctx, "draft step: not waiting for the job", "draftId", draftID, "error", subErr)
	}
	step, err := start()
	if err != nil {
		return nil, fail(err)
	}
	if step.Enqueued && subErr == nil && s.waitJobDone(ctx, sub) {
		if step.Draft, err = s.drafts.Get(ctx, step.Draft.WorkspaceID, draftID); err != nil {
			return nil, fail(err)
		}
	}
	status := http.StatusOK
	if step.Draft.Status == draft.DraftRefining || step.Draft.Status == draft.DraftGenerating {
		status = http.StatusAccepted
	}
	return &DraftStepOutput{Status: status, Body: draftOut(step.Draft)}, nil
}

// waitJobDone waits for a job's done event on sub, at most Options.DraftWait; false when none came.
func (s agentOps) waitJobDone(ctx context.Context, sub *stream.Subscription) bool {
	timer := time.NewTimer(s.opts.DraftWait)
	defer timer.Stop()
	for {
		select {
		case ev, ok := <-sub.C:
			if !ok {
				return false // dropped or the relay closed: answer with the state as it is
			}
			if ev.Type == draft.DraftEventDone {
				return true
			}
		case <-timer.C:
			return false
		case <-ctx.Done():
			return false
		}
	}
}

// DraftExecutionOut is what executing a draft made.
type DraftExecutionOut struct {
	Draft          DraftOut   `json:"draft"`
	Project        ProjectOut `json:"project"`
	MembersAdded   []string   `json:"membersAdded" doc:"E-mails of the team members added to the project"`
	MembersSkipped []string   `json:"membersSkipped" doc:"Names of the team members not added: no e-mail, or not a member of the workspace (invite them first)"`
}

func (s agentOps) executeDraft(ctx context.Context, in *DraftPath) (*Output[DraftExecutionOut], error) {
	if !isUUID(in.DraftID) {
		return nil, errNotFound("draft not found")
	}
	return oneOf(func(e draft.DraftExecution) DraftExecutionOut {
		return DraftExecutionOut{Draft: draftOut(e.Draft), Project: projectOut(e.Project), MembersAdded: e.MembersAdded,
			MembersSkipped: e.MembersSkipped}
	})(s.drafts.Execute(ctx, recordEdit(ctx, in.DraftID)))
}

// EditDraftRoadmapInput is the request of project-drafts-edit-roadmap.
type EditDraftRoadmapInput struct {
	DraftPath
	Body DraftRoadmapIn
}

// DraftRoadmapIn is a roadmap as a person adjusted it.
type DraftRoadmapIn struct {
	Phases []DraftPhaseIn `json:"phases" required:"true" minItems:"1" maxItems:"20" doc:"In order; each becomes a column"`
}

// DraftPhaseIn is a phase of an adjusted roadmap.
type DraftPhaseIn struct {
	Name         string               `json:"name" required:"true" minLength:"1" maxLength:"100"`
	Goal         string               `json:"goal,omitempty" maxLength:"1000"`
	Deliverables []DraftDeliverableIn `json:"deliverables" required:"true" maxItems:"50" doc:"Each becomes a card"`
}

// DraftDeliverableIn is a deliverable of an adjusted roadmap.
type DraftDeliverableIn struct {
	Title       string `json:"title" required:"true" minLength:"1" maxLength:"200"`
	Description string `json:"description,omitempty" maxLength:"2000"`
}

func (s agentOps) editDraftRoadmap(ctx context.Context, in *EditDraftRoadmapInput) (*Output[DraftOut], error) {
	if !isUUID(in.DraftID) {
		return nil, errNotFound("draft not found")
	}
	r := draft.DraftRoadmap{Phases: make([]draft.DraftPhase, 0, len(in.Body.Phases))}
	for _, p := range in.Body.Phases {
		ph := draft.DraftPhase{Name: p.Name, Goal: p.Goal, Deliverables: make([]draft.DraftDeliverable, 0,
			len(p.Deliverables))}
		for _, d := range p.Deliverables {
			ph.Deliverables = append(ph.Deliverables, draft.DraftDeliverable{Title: d.Title, Description: d.Description})
		}
		r.Phases = append(r.Phases, ph)
	}
	return oneOf(draftOut)(s.drafts.EditRoadmap(ctx, recordEdit(ctx, in.DraftID), r))
}

// DraftStreamInput addresses a draft's event stream.
type DraftStreamInput struct {
	DraftPath
	LastEventID string `header:"Last-Event-ID" doc:"The last event id received: the stream replays the events after it"`
}

// watchDraft answers the draft's event stream, after checking the draft is in the workspace. With
// Last-Event-ID, it starts after that event. Without, a client of a working draft gets its current job
// from the start, a client of an executed draft its execution, and a client of an idle draft waits for
// its next event. Either way the stream ends after the event reporting the draft executed.
func (s agentOps) watchDraft(ctx context.Context, in *DraftStreamInput) (*huma.StreamResponse, error) {
	if !isUUID(in.DraftID) {
		return nil, errNotFound("draft not found")
	}
	after := stream.ParseLastEventID(in.LastEventID)
	var state db.StreamState
	if strings.TrimSpace(in.LastEventID) == "" {
		// The stream's state before the draft's status: a job that starts in between is seen working.
		var err error
		if state, err = s.store.StreamState(ctx, in.DraftID); err != nil {
			return nil, fail(err)
		}
	}
	d, err := s.drafts.Get(ctx, accessFrom(ctx).WorkspaceID, in.DraftID)
	if err != nil {
		return nil, fail(err)
	}
	if strings.TrimSpace(in.LastEventID) == "" {
		switch d.Status {
		case draft.DraftRefining, draft.DraftGenerating, draft.DraftExecuted:
			if after, err = s.store.StreamSegmentStart(ctx, in.DraftID, draft.DraftEventDone); err != nil {
				return nil, fail(err)
			}
		default:
			after = state.LastSeq
		}
	}
	return &huma.StreamResponse{Body: func(hctx huma.Context) {
		r, w, stop := s.unwrapStream(hctx)
		defer stop()
		s.serveStream(w, r, draft.StreamDraft, in.DraftID, after)
	}}, nil
}
