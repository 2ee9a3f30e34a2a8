package llm

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"
)

// The offline planner's project drafts: questions and a roadmap derived from the draft's own text.
// The draft's kind of project (a mobile app, a data migration, a website, an integration, an event or
// campaign, anything else) picks the shape of its phases; its name, description, answers, team and
// context documents fill them in.

// draftTopic is a kind of project the offline planner recognises.
type draftTopic struct {
	name      string
	keywords  []string
	questions []string // with %[1]s for the draft's name
	phases    []topicPhase
}

type topicPhase struct {
	name, goal   string // goal with %[1]s for the draft's name
	roles        []string
	deliverables [][2]string // title, description with %[1]s
}

var draftTopics = []draftTopic{
	{name: "mobile app", keywords: []string{"mobile", "ios", "android", "iphone", "smartphone", "app store", "play store",
		"react native", "flutter", "tablet"}, questions: []string{
		"Which platforms must %[1]s support at launch: iOS, Android or both?",
		"Must %[1]s work offline, and what has to sync when the device reconnects?",
		"How will %[1]s reach its users: public app stores, a private distribution, or a beta first?",
		"Which device features does %[1]s rely on (camera, location, push notifications)?",
	},
		phases: []topicPhase{
			{"Discovery and UX", "Know who uses %[1]s and how, and agree on the screens before building them.",
				[]string{"design", "ux", "product", "research"}, [][2]string{{"User journeys", "Map the main journeys of %[1]s " +
					"from first launch to daily use."}, {"Clickable prototype", "Prototype the key screens and test them with five " +
					"users."}}},
			{"App foundation", "Set up the app's architecture, navigation and release pipeline.", []string{"engineer",
				"developer", "mobile", "tech"}, [][2]string{{"Project skeleton and CI builds", "Signed iOS/Android builds " +
				"produced on every merge."}, {"Authentication and API client", "Sign-in and the client for the backend %[1]s " +
				"talks to."}}},
			{"Core features", "Build the features that make %[1]s worth installing.", []string{"engineer", "developer",
				"mobile"}, [][2]string{{"Main screens", "Implement the screens validated in the prototype."}, {"Push notifications",
				"Notify users of what matters to them, with opt-in."}}}, {"Beta and store release", "Put %[1]s in testers' " +
				"hands, fix what they find, and publish it in the stores.", []string{"qa", "test", "product", "marketing"},
				[][2]string{{"Beta programme", "Distribute a beta build, collect crashes and feedback."}, {"Store listings and " +
					"submission", "Screenshots, descriptions and review submission for each store."}}},
		}},
	{name: "data migration", keywords: []string{"migration", "migrate", "legacy", "etl", "warehouse", "cutover",
		"database", "schema", "records", "mainframe"}, questions: []string{
		"Which source systems does %[1]s move data out of, and roughly how many records?",
		"How much downtime can the business accept during the %[1]s cutover?",
		"How will you prove the migrated data is correct (counts, checksums, sample reviews)?",
		"Which data must be cleaned or transformed on the way, and who decides the mapping rules?",
		"What is the rollback plan if %[1]s has to be reversed after cutover?",
	},
		phases: []topicPhase{
			{"Inventory and mapping", "Know every source, field and rule %[1]s must carry over.", []string{"data", "analyst",
				"architect", "owner"}, [][2]string{{"Source inventory", "List the source systems, tables and volumes in scope of " +
				"%[1]s."}, {"Field mapping and cleansing rules", "Map each source field to its target and agree the " +
				"transformation rules."}}},
			{"Migration tooling", "Build repeatable extraction, transformation and loading.", []string{"engineer", "developer",
				"data"}, [][2]string{{"Extract and load scripts", "Idempotent jobs that can run again from scratch."},
				{"Reconciliation reports", "Counts and checksums compared between source and target."}}}, {"Trial migrations",
				"Rehearse %[1]s on copies until the numbers reconcile.", []string{"qa", "test", "data", "analyst"},
				[][2]string{{"Dress rehearsal on production copy", "Run the full migration on a copy and time it."},
					{"Business sign-off on sample data", "Owners review samples of migrated records."}}}, {"Cutover and " +
				"decommissioning", "Switch to the new system and retire the old one safely.", []string{"ops", "owner", "manager",
				"lead"}, [][2]string{{"Cutover runbook", "Step-by-step plan with go/no-go points and the rollback path."},
				{"Legacy decommissioning", "Archive and switch off the source systems after the retention period."}}},
		}},
	{name: "website", keywords: []string{"website", "web site", "landing page", "cms", "seo", "blog", "web portal"},
		questions: []string{
			"Who visits %[1]s and what should they do there?",
			"Which content exists already for %[1]s and who writes the rest?",
			"Which CMS or hosting constraints apply to %[1]s?",
		},
		phases: []topicPhase{
			{"Content and structure", "Decide what %[1]s says and how it is organised.", []string{"content", "marketing",
				"product"}, [][2]string{{"Site map", "Pages of %[1]s and how visitors move between them."}, {"Copy deck",
				"Text for every page, reviewed."}}}, {"Design", "Give %[1]s its look on every screen size.", []string{"design",
				"ux"}, [][2]string{{"Page templates", "Responsive designs of each page type."}}},
			{"Build", "Build and wire %[1]s to its CMS.", []string{"engineer", "developer"},
				[][2]string{{"Templates in the CMS", "Implement the templates and content types."}, {"Analytics and SEO basics",
					"Tracking, metadata and sitemaps."}}}, {"Launch", "Put %[1]s live and watch it.", []string{"marketing", "ops"},
				[][2]string{{"Go-live checklist", "Redirects, DNS, performance and accessibility checks."}}},
		}},
	{name: "integration", keywords: []string{"api", "integration", "integrate", "backend", "webhook", "microservice",
		"sync"}, questions: []string{
		"Which systems does %[1]s connect, and who owns each of them?",
		"What volume and latency must %[1]s handle?",
		"How should %[1]s behave when the other side is down?",
	},
		phases: []topicPhase{
			{"Contract", "Agree the interfaces %[1]s exposes and consumes.", []string{"architect", "product", "lead"},
				[][2]string{{"API specification", "Endpoints, payloads and errors, reviewed by both sides."}}},
			{"Implementation", "Build %[1]s behind the agreed contract.", []string{"engineer", "developer"},
				[][2]string{{"Service implementation", "The endpoints and jobs of %[1]s with tests."}, {"Retries and idempotency",
					"Failures on either side never lose or duplicate data."}}}, {"Hardening and rollout", "Make %[1]s observable " +
				"and roll it out gradually.", []string{"ops", "qa", "sre"},
				[][2]string{{"Monitoring and alerts", "Dashboards and alerts on errors and latency."}, {"Staged rollout",
					"Enable for a first client, then everyone."}}},
		}},
	{name: "event or campaign", keywords: []string{"event", "conference", "campaign", "launch", "marketing", "webinar",
		"meetup"}, questions: []string{
		"Who is the audience of %[1]s and how many people do you expect?",
		"What is the date of %[1]s, and is it fixed?",
		"What budget does %[1]s have?",
	},
		phases: []topicPhase{
			{"Plan", "Fix the goals, audience and budget of %[1]s.", []string{"manager", "lead", "marketing"},
				[][2]string{{"Brief and budget", "Goals, audience, budget and success measures of %[1]s."}}},
			{"Prepare", "Line up everything %[1]s needs.", []string{"marketing", "content", "design"},
				[][2]string{{"Promotion plan", "Channels, messages and calendar."}, {"Materials", "Visuals and content ready for " +
					"every channel."}}},
			{"Run", "Deliver %[1]s.", []string{"ops", "manager"},
				[][2]string{{"Day-of runbook", "Who does what, hour by hour."}}},
			{"Follow up", "Learn from %[1]s and keep the contacts warm.", []string{"marketing", "sales"},
				[][2]string{{"Results report", "Numbers against the success measures."}}},
		}},
}

// genericTopic is used when no topic matches.
var genericTopic = draftTopic{name: "project",
	phases: []topicPhase{
		{"Framing", "Agree what %[1]s delivers, for whom, and how success is measured.", []string{"product", "manager",
			"lead", "owner"}, [][2]string{{"Scope and success measures", "What is in and out of %[1]s, and the numbers that " +
			"say it worked."}}},
		{"Build", "Produce the work of %[1]s in small, reviewable pieces.", []string{"engineer", "developer", "design"},
			[][2]string{{"First working increment", "The smallest version of %[1]s someone can use."}}},
		{"Review and delivery", "Check %[1]s against its success measures and hand it over.", []string{"qa", "test", "ops"},
			[][2]string{{"Acceptance review", "Stakeholders review %[1]s against the agreed scope."}}},
	}}

var genericQuestions = []string{
	"Who are the primary users of %[1]s, and what problem does it solve for them?",
	"What date or event does %[1]s have to be ready for?",
	"How will you know %[1]s succeeded: which number or outcome?",
	"What is explicitly out of scope for %[1]s?",
	"What is the riskiest assumption behind %[1]s?",
}

// draftText is everything the draft says, lower-cased (topic detection).
func draftText(d DraftContext) string {
	parts := []string{d.Name, d.Description}
	for _, doc := range d.Documents {
		parts = append(parts, doc.Title, doc.Content)
	}
	for _, a := range d.Answers {
		parts = append(parts, a.Answer)
	}
	return strings.ToLower(strings.Join(parts, "\n"))
}

// pickTopic is the topic whose keywords the draft mentions most (name and description count double).
func pickTopic(d DraftContext) draftTopic {
	text := draftText(d)
	head := strings.ToLower(d.Name + "\n" + d.Description)
	best, score := genericTopic, 0
	for _, t := range draftTopics {
		re := topicWords(t)
		n := len(re.FindAllStringIndex(text, -1)) + len(re.FindAllStringIndex(head, -1))
		if n > score {
			best, score = t, n
		}
	}
	return best
}

// offlineDraft answers a draft task with the JSON text a model would give.
func offlineDraft(t DraftTask) string {
	var v any
	if t.Kind == DraftTaskQuestions {
		v = map[string]any{"questions": offlineQuestions(t.Draft)}
	} else {
		v = offlineRoadmap(t.Draft)
	}
	b, _ := json.MarshalIndent(v, "", "  ") //nolint:errchkjson // plain strings and slices
	return string(b)
}

// offlineQuestions: follow-ups on the last answers, then the topic's questions, then the team's and
// the documents', then generic ones; none already answered; at most MaxDraftQuestions.
func offlineQuestions(d DraftContext) []string {
	name := strings.TrimSpace(d.Name)
	var cands []string
	if d.Round > 1 {
		// Follow-ups on the latest substantial answers not followed up yet.
		answered := map[string]bool{}
		for _, a := range d.Answers {
			answered[QuestionKey(a.Question)] = true
		}
		for i := len(d.Answers) - 1; i >= 0 && len(cands) < 2; i-- {
			a := strings.TrimSpace(d.Answers[i].Answer)
			q := fmt.Sprintf("You said “%s”: what has to be true for that to count as done?", truncateRunes(a, 120))
			if len(strings.Fields(a)) >= 3 && !answered[QuestionKey(q)] && !slices.Contains(cands, q) {
				cands = append(cands, q)
			}
		}
	}
	t := pickTopic(d)
	for _, q := range t.questions {
		cands = append(cands, fill(q, name))
	}
	if len(d.TeamMembers) == 0 {
		cands = append(cands, fmt.Sprintf("Who will work on %s, and in which roles?", name))
	}
	for i, m := range d.TeamMembers {
		if i == 3 {
			break
		}
		cands = append(cands, fmt.Sprintf("What will %s (%s) own in %s?", m.Name, m.Role, name))
	}
	for i, doc := range d.Documents {
		if i == 2 {
			break
		}
		cands = append(cands, fmt.Sprintf("Which parts of “%s” are binding constraints for %s?", doc.Title, name))
	}
	for _, q := range genericQuestions {
		cands = append(cands, fill(q, name))
	}
	return cleanQuestions(cands, d.Answers)
}

// offlineRoadmap fills the topic's phases with the draft's own items, owners and documents, then lets
// the refinement answers refine it (see refineRoadmap). Only work the draft lists itself (bullets or
// numbered lines of its description) becomes deliverables of its own; the description's prose and the
// answers say what the project is and how to do it, not what to deliver.
func offlineRoadmap(d DraftContext) Roadmap {
	name := strings.TrimSpace(d.Name)
	t := pickTopic(d)
	items := listedItems(d.Description)
	r := Roadmap{Phases: []Phase{}}
	owners := make([]string, len(t.phases))
	for i, tp := range t.phases {
		ph := Phase{Name: tp.name, Goal: fill(tp.goal, name), Deliverables: []Deliverable{}}
		owners[i] = phaseOwner(tp, d.TeamMembers)
		if i == 0 {
			for j, doc := range d.Documents {
				if j == 2 {
					break
				}
				ph.Deliverables = append(ph.Deliverables, Deliverable{Title: truncateRunes("Review “"+doc.Title+"”",
					MaxDeliverableRunes), Description: "Extract the constraints and decisions this document sets for " + name + ": " +
					truncateRunes(firstSentence(doc.Content), 300) + "."})
			}
		}
		for _, dl := range tp.deliverables {
			ph.Deliverables = append(ph.Deliverables, Deliverable{Title: dl[0], Description: fill(dl[1], name)})
		}
		// The draft's listed items go to the phase that builds (the second), or the only one.
		if i == min(1, len(t.phases)-1) {
			for j, it := range items {
				if j == 4 {
					break
				}
				ph.Deliverables = append(ph.Deliverables, Deliverable{Title: truncateRunes(it, MaxDeliverableRunes),
					Description: "Listed in the draft of " + name + ": " + it + "."})
			}
		}
		r.Phases = append(r.Phases, ph)
	}
	refineRoadmap(&r, d, min(1, len(t.phases)-1))
	for i := range r.Phases {
		ph := &r.Phases[i]
		if owners[i] != "" {
			for k := range ph.Deliverables {
				ph.Deliverables[k].Description += " Owner: " + owners[i] + "."
			}
		}
		if len(ph.Deliverables) > MaxPhaseDeliverables {
			ph.Deliverables = ph.Deliverables[:MaxPhaseDeliverables]
		}
		for k := range ph.Deliverables {
			ph.Deliverables[k].Description = truncateRunes(ph.Deliverables[k].Description, MaxDeliverableDescRunes)
		}
	}
	return r
}

// listedItems are the lines of text that are bullets or numbered items: work the draft lists itself.
func listedItems(text string) []string {
	var items []string
	for l := range strings.SplitSeq(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		if m := bulletLine.FindStringSubmatch(l); m != nil {
			items = appendStep(items, m[1])
		}
	}
	return items
}

// refineRoadmap lets each answered question refine the roadmap rather than add to it: the answer is
// recorded in the description of the deliverable its question and answer speak of most (shared
// words, the draft's name aside), and the deliverables an answer speaks of come first in their phase,
// in the order of the answers. An answer that speaks of no deliverable is recorded on the first one
// of the building phase.
func refineRoadmap(r *Roadmap, d DraftContext, buildPhase int) {
	ignore := wordSet(d.Name)
	type pos struct{ phase, idx int }
	decided := map[pos][]string{}
	var order []pos
	for _, a := range d.Answers {
		answer := strings.Join(strings.Fields(a.Answer), " ")
		if answer == "" {
			continue
		}
		about := wordSet(a.Question + " " + answer)
		for w := range ignore {
			delete(about, w)
		}
		best, score := pos{buildPhase, 0}, 0
		for i, ph := range r.Phases {
			for k, dl := range ph.Deliverables {
				n := 0
				for w := range wordSet(dl.Title + " " + dl.Description) {
					if about[w] && !ignore[w] {
						n++
					}
				}
				if n > score {
					best, score = pos{i, k}, n
				}
			}
		}
		if len(r.Phases[best.phase].Deliverables) == 0 {
			continue
		}
		if _, seen := decided[best]; !seen && score > 0 {
			order = append(order, best)
		}
		decided[best] = append(decided[best], "“"+truncateRunes(strings.TrimRight(answer, ". "), 300)+"”")
	}
	for p, answers := range decided {
		dl := &r.Phases[p.phase].Deliverables[p.idx]
		dl.Description += " Decided in refinement: " + strings.Join(answers, "; ") + "."
	}
	// Deliverables an answer spoke of first, keeping the rest in their order.
	for i := range r.Phases {
		var first []Deliverable
		picked := map[int]bool{}
		for _, p := range order {
			if p.phase == i {
				first = append(first, r.Phases[i].Deliverables[p.idx])
				picked[p.idx] = true
			}
		}
		for k, dl := range r.Phases[i].Deliverables {
			if !picked[k] {
				first = append(first, dl)
			}
		}
		r.Phases[i].Deliverables = first
	}
}

// stopWords are words too common to tie an answer to a deliverable.
var stopWords = map[string]bool{"the": true, "and": true, "for": true, "with": true, "that": true, "this": true,
	"what": true, "which": true, "who": true, "how": true, "are": true, "was": true, "will": true, "must": true,
	"does": true, "has": true, "have": true, "use": true, "uses": true, "its": true, "their": true, "them": true,
	"they": true, "from": true, "into": true, "each": true, "every": true, "all": true, "any": true, "not": true,
	"but": true, "you": true, "your": true, "our": true, "can": true, "should": true, "would": true, "when": true,
	"where": true, "need": true, "needs": true, "first": true, "both": true, "one": true, "out": true, "there": true,
	"then": true, "than": true, "also": true}

// wordSet is the set of lower-cased words of at least three letters or digits in s, stop words aside.
func wordSet(s string) map[string]bool {
	out := map[string]bool{}
	for w := range strings.FieldsFuncSeq(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) &&
			!unicode.IsDigit(r)
	}) {
		if len([]rune(w)) >= 3 && !stopWords[w] {
			out[w] = true
		}
	}
	return out
}

// phaseOwner names the first team member whose role matches the phase's roles.
func phaseOwner(tp topicPhase, team []DraftMember) string {
	for _, m := range team {
		role := strings.ToLower(m.Role)
		for _, k := range tp.roles {
			if strings.Contains(role, k) {
				return fmt.Sprintf("%s (%s)", m.Name, m.Role)
			}
		}
	}
	return ""
}

var (
	topicREMu sync.Mutex
	topicREs  = map[string]*regexp.Regexp{}
)

// topicWords matches a topic's keywords as whole words.
func topicWords(t draftTopic) *regexp.Regexp {
	topicREMu.Lock()
	defer topicREMu.Unlock()
	re := topicREs[t.name]
	if re == nil {
		quoted := make([]string, len(t.keywords))
		for i, k := range t.keywords {
			quoted[i] = regexp.QuoteMeta(k)
		}
		re = regexp.MustCompile(`\b(?:` + strings.Join(quoted, "|") + `)\b`)
		topicREs[t.name] = re
	}
	return re
}

// fill puts the draft's name in place of %[1]s.
func fill(s, name string) string { return strings.ReplaceAll(s, "%[1]s", name) }

func firstSentence(s string) string {
	if steps := deriveSteps(s); len(steps) > 0 {
		return steps[0]
	}
	return strings.TrimSpace(s)
}
