package sources

// Vikunja's data export (Settings → Export your Vikunja data): a zip archive holding `VERSION`, `data.json`
// (every project with its views, buckets, task buckets, task positions and tasks, each task with its
// labels, assignees, comments, relations and attachments' metadata) and `files/<file id>`, the bytes of
// the attachments (and project backgrounds, which are not read). Archives written before Vikunja 0.22
// have buckets by project and each task's `bucket_id` instead of views and task buckets; both are read.

import (
	"archive/zip"
	"cmp"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pilot-dev/pilot/db/board"
	"github.com/pilot-dev/pilot/db/transfer"
)

type vkUser struct {
	ID       int64  `json:"id"`
	Name     string `json:"name"`
	Username string `json:"username"`
	Email    string `json:"email"`
}

func (u *vkUser) display() string {
	if u == nil {
		return ""
	}
	return cmp.Or(strings.TrimSpace(u.Name), u.Username)
}

type vkTask struct {
	ID          int64  `json:"id"`
	Title       string `json:"title"`
	Description string `json:"description"`
	Done        bool   `json:"done"`
	DueDate     string `json:"due_date"`
	StartDate   string `json:"start_date"`
	Priority    int64  `json:"priority"`
	Identifier  string `json:"identifier"`
	Assignees   []vkUser
	Labels      []struct {
		Title    string `json:"title"`
		HexColor string `json:"hex_color"`
	} `json:"labels"`
	RelatedTasks map[string][]struct {
		ID int64 `json:"id"`
	} `json:"related_tasks"`
	Attachments []struct {
		ID   int64 `json:"id"`
		File *struct {
			ID   int64  `json:"id"`
			Name string `json:"name"`
			Mime string `json:"mime"`
			Size int64  `json:"size"`
		} `json:"file"`
	} `json:"attachments"`
	BucketID       int64   `json:"bucket_id"`
	Position       float64 `json:"position"`
	KanbanPosition float64 `json:"kanban_position"`
	Comments       []struct {
		Comment string  `json:"comment"`
		Author  *vkUser `json:"author"`
		Created string  `json:"created"`
	} `json:"comments"`
}

type vkBucket struct {
	ID            int64   `json:"id"`
	Title         string  `json:"title"`
	ProjectViewID int64   `json:"project_view_id"`
	Position      float64 `json:"position"`
	IsDoneBucket  bool    `json:"is_done_bucket"`
}

type vkProject struct {
	ID          int64       `json:"id"`
	Title       string      `json:"title"`
	Description string      `json:"description"`
	IsArchived  bool        `json:"is_archived"`
	Children    []vkProject `json:"child_projects"`
	Tasks       []vkTask    `json:"tasks"`
	Views       []struct {
		ID           int64           `json:"id"`
		ViewKind     json.RawMessage `json:"view_kind"`
		Position     float64         `json:"position"`
		DoneBucketID int64           `json:"done_bucket_id"`
	} `json:"views"`
	Buckets     []vkBucket `json:"buckets"`
	TaskBuckets []struct {
		BucketID      int64 `json:"bucket_id"`
		TaskID        int64 `json:"task_id"`
		ProjectViewID int64 `json:"project_view_id"`
	} `json:"task_buckets"`
	Positions []struct {
		TaskID        int64   `json:"task_id"`
		ProjectViewID int64   `json:"project_view_id"`
		Position      float64 `json:"position"`
	} `json:"positions"`
}

// vikunjaPriorities: 1 low, 2 medium, 3 high, 4 urgent, 5 do now; 0 is unset.
var vikunjaPriorities = map[int64]string{1: "low", 2: "medium", 3: "high", 4: "high", 5: "high"}

var hexColorRe = regexp.MustCompile(`^#?([0-9a-fA-F]{6})$`)

// maxDataJSON bounds data.json.
const maxDataJSON = 100 << 20

func parseVikunja(data []byte) (Export, error) {
	if !isZip(data) {
		return Export{}, unreadable("not a Vikunja export: a Vikunja export is a zip archive (data.json, VERSION, files/)")
	}
	zr, err := openZip(data)
	if err != nil {
		return Export{}, err
	}
	var dataFile *zip.File
	files := map[int64]*zip.File{}
	version := false
	for _, f := range zr.File {
		switch {
		case f.Name == "data.json":
			dataFile = f
		case f.Name == "VERSION":
			version = true
		case strings.HasPrefix(f.Name, "files/"):
			if id, err := strconv.ParseInt(strings.TrimPrefix(f.Name, "files/"), 10, 64); err == nil {
				files[id] = f
			}
		}
	}
	if dataFile == nil || !version {
		return Export{}, unreadable("not a Vikunja export: the archive has no data.json or VERSION")
	}
	raw, err := readZipFile(dataFile, maxDataJSON)
	if err != nil {
		return Export{}, unreadable("data.json cannot be read: %v", err)
	}
	var projects []vkProject
	if err := json.Unmarshal(raw, &projects); err != nil {
		return Export{}, unreadable("not a Vikunja export: data.json: %v", err)
	}
	var out Export
	var walk func(ps []vkProject, depth int)
	walk = func(ps []vkProject, depth int) {
		for _, p := range ps {
			if p.ID < 0 {
				out.Skipped = append(out.Skipped, Skip{Item: fmt.Sprintf("project %q", p.Title),
					Reason: "a saved filter or pseudo project (Favorites), not a project"})
			} else {
				out.Projects = append(out.Projects, vikunjaProject(p, files))
			}
			if depth < 32 {
				walk(p.Children, depth+1)
			}
		}
	}
	walk(projects, 0)
	if len(out.Projects) == 0 {
		return out, unreadable("the Vikunja export holds no project")
	}
	return out, nil
}

// vikunjaTime reads a Vikunja date; its zero date (year 1) is none.
func vikunjaTime(s string) *time.Time {
	t := parseTime(s, time.RFC3339Nano)
	if t == nil || t.Year() <= 1 {
		return nil
	}
	return t
}

func vikunjaProject(p vkProject, files map[int64]*zip.File) Project {
	name := p.Title
	if p.IsArchived {
		name += " (archived)"
	}
	b := newBuilder(name, p.Description)

	// The columns: the buckets of the project's first kanban view, else (archives before views) the
	// project's buckets; a done task goes to the done bucket, else to a column "Done".
	kanban, doneBucket := int64(-1), int64(0)
	bestPos := 0.0
	for _, v := range p.Views {
		kind := strings.Trim(string(v.ViewKind), `"`)
		if (kind == "kanban" || kind == "3") && (kanban < 0 || v.Position < bestPos) {
			kanban, bestPos, doneBucket = v.ID, v.Position, v.DoneBucketID
		}
	}
	if kanban < 0 {
		kanban = 0 // buckets of an archive before views have no view
	}
	buckets := slices.DeleteFunc(slices.Clone(p.Buckets), func(bk vkBucket) bool { return bk.ProjectViewID != kanban })
	slices.SortStableFunc(buckets, func(a, c vkBucket) int { return cmpFloat(a.Position, c.Position) })
	for _, bk := range buckets {
		b.column(strconv.FormatInt(bk.ID, 10), bk.Title)
		if bk.IsDoneBucket && doneBucket == 0 {
			doneBucket = bk.ID
		}
	}
	taskBucket := map[int64]int64{}
	for _, tb := range p.TaskBuckets {
		if tb.ProjectViewID == kanban {
			taskBucket[tb.TaskID] = tb.BucketID
		}
	}
	position := map[int64]float64{}
	for _, ps := range p.Positions {
		if ps.ProjectViewID == kanban {
			position[ps.TaskID] = ps.Position
		}
	}
	tasks := slices.Clone(p.Tasks)
	pos := func(t vkTask) float64 {
		if v, ok := position[t.ID]; ok {
			return v
		}
		return cmp.Or(t.KanbanPosition, t.Position)
	}
	slices.SortStableFunc(tasks, func(a, c vkTask) int {
		return cmp.Or(cmpFloat(pos(a), pos(c)), cmp.Compare(a.ID, c.ID))
	})

	for _, t := range tasks {
		key := strconv.FormatInt(t.ID, 10)
		bucket, ok := taskBucket[t.ID]
		if !ok {
			bucket = t.BucketID
		}
		var col int
		switch _, known := b.cols[strconv.FormatInt(bucket, 10)]; {
		case t.Done && doneBucket != 0:
			col, ok = b.column(strconv.FormatInt(doneBucket, 10), "Done")
		case t.Done:
			col, ok = b.column("done", "Done")
		case known:
			col, ok = b.cols[strconv.FormatInt(bucket, 10)], true
		case len(b.p.Doc.Columns) > 0:
			col, ok = 0, true
		default:
			col, ok = b.column("todo", "To do")
		}
		if !ok {
			b.skip(fmt.Sprintf("task %q", t.Title), "its column could not be added")
			continue
		}
		c := transfer.TransferCard{Title: t.Title, ColumnIndex: col, Description: t.Description,
			Priority: vikunjaPriorities[t.Priority], DueDate: vikunjaTime(t.DueDate),
			StartDate: vikunjaTime(t.StartDate)}
		for _, l := range t.Labels {
			color := "#e2e8f0"
			if m := hexColorRe.FindStringSubmatch(strings.TrimSpace(l.HexColor)); m != nil {
				color = "#" + strings.ToLower(m[1])
			}
			if n := b.label(l.Title, color); n != "" && !slices.Contains(c.Labels, n) {
				c.Labels = append(c.Labels, n)
			}
		}
		for _, cm := range t.Comments {
			tc := transfer.TransferComment{Content: cm.Comment, CreatedAt: vikunjaTime(cm.Created)}
			if who := cm.Author.display(); who != "" {
				tc.Content = who + ": " + tc.Content
			}
			if cm.Author != nil {
				tc.AuthorEmail = cm.Author.Email
			}
			c.Comments = append(c.Comments, tc)
		}
		assignee := ""
		for _, a := range t.Assignees {
			switch {
			case a.Email != "" && assignee == "":
				assignee = a.Email
			case a.Email == "":
				b.skip(fmt.Sprintf("assignee %s of task %q", a.display(), t.Title),
					"the export carries no e-mail for this user to match a workspace member")
			}
		}
		if len(t.Assignees) > 1 {
			b.p.Warnings = append(b.p.Warnings, fmt.Sprintf("task %q has %d assignees: a card has one", t.Title,
				len(t.Assignees)))
		}
		if !b.card(key, c, assignee) {
			continue
		}
		b.vikunjaFiles(t, b.cards[key], files)
	}
	// Relations, once the cards are known; each is listed on both tasks (subtask and parenttask, say).
	for _, t := range tasks {
		from := strconv.FormatInt(t.ID, 10)
		kinds := slices.Sorted(func(yield func(string) bool) {
			for k := range t.RelatedTasks {
				if !yield(k) {
					return
				}
			}
		})
		for _, kind := range kinds {
			for _, o := range t.RelatedTasks[kind] {
				to := strconv.FormatInt(o.ID, 10)
				if _, ok := b.cards[to]; !ok {
					b.skip(fmt.Sprintf("relation %s of task %q", kind, t.Title),
						"the related task is in another project or not in the export")
					continue
				}
				vikunjaRelation(b, from, to, kind)
			}
		}
	}
	return b.done()
}

// vikunjaRelation maps a Vikunja relation kind of task from to task to.
func vikunjaRelation(b *builder, from, to, kind string) {
	a, c := from, to
	if a > c {
		a, c = c, a // symmetric relations once
	}
	switch kind {
	case "subtask":
		b.relation(from, to, "parent_of")
	case "parenttask":
		b.relation(to, from, "parent_of")
	case "blocking":
		b.relation(from, to, "blocks")
	case "blocked":
		b.relation(to, from, "blocks")
	case "duplicateof":
		b.relation(from, to, "duplicates")
	case "duplicates":
		b.relation(to, from, "duplicates")
	case "precedes":
		b.relation(from, to, "blocks")
	case "follows":
		b.relation(to, from, "blocks")
	default: // related, copiedfrom, copiedto
		b.relation(a, c, "related_to")
	}
}

// vikunjaFiles adds the attachments of task t (the card at index i) whose bytes the archive holds.
func (b *builder) vikunjaFiles(t vkTask, i int, files map[int64]*zip.File) {
	for _, a := range t.Attachments {
		if a.File == nil {
			continue
		}
		item := fmt.Sprintf("attachment %q of task %q", a.File.Name, t.Title)
		f, ok := files[a.File.ID]
		switch {
		case !ok:
			b.skip(item, "the archive does not hold its file")
			continue
		case f.UncompressedSize64 > uint64(board.MaxAttachmentSize):
			b.skip(item, fmt.Sprintf("it is larger than the %d MB attachment limit", board.MaxAttachmentSize>>20))
			continue
		}
		b.p.Files = append(b.p.Files, File{CardIndex: i, Name: fileName(a.File.Name), MimeType: a.File.Mime,
			Size: int64(f.UncompressedSize64), Open: func() ([]byte, error) {
				return readZipFile(f, board.MaxAttachmentSize)
			}})
	}
}
