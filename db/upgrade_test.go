package db_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/internal/pgtest"
)

// upgradeSeed is one migration's row of the upgrade path test: seed is SQL written against the schema
// as it stands right after that migration (the migration's new tables, with rows of the tables before it
// already there from earlier seeds), and survives a query against the newest schema answering true when
// those rows came through every later migration. A migration that adds nothing to seed (a function, a
// trigger, an index, a constraint) says why in none instead: the earlier seeds' rows still pass through it.
type upgradeSeed struct {
	version  int64
	seed     string
	survives string
	none     string
}

// Fixed ids, so that later seeds and the checks name earlier rows.
const (
	uAnn   = "a0000000-0000-4000-8000-000000000001"
	uBot   = "a0000000-0000-4000-8000-000000000002"
	oAcme  = "a0000000-0000-4000-8000-000000000010"
	wEng   = "a0000000-0000-4000-8000-000000000011"
	pLnch  = "a0000000-0000-4000-8000-000000000020"
	cTodo  = "a0000000-0000-4000-8000-000000000021"
	kCard  = "a0000000-0000-4000-8000-000000000022"
	kTwo   = "a0000000-0000-4000-8000-000000000023"
	aAct   = "a0000000-0000-4000-8000-000000000024"
	gBot   = "a0000000-0000-4000-8000-000000000030"
	mMis   = "a0000000-0000-4000-8000-000000000031"
	dDoc   = "a0000000-0000-4000-8000-000000000040"
	lPipe  = "a0000000-0000-4000-8000-000000000050"
	rRun   = "a0000000-0000-4000-8000-000000000051"
	sSess  = "a0000000-0000-4000-8000-000000000060"
	hHook  = "a0000000-0000-4000-8000-000000000070"
	pOld   = "a0000000-0000-4000-8000-000000000080"
	mAsk   = "a0000000-0000-4000-8000-000000000032"
	iImp   = "a0000000-0000-4000-8000-000000000090"
	uAudit = "a0000000-0000-4000-8000-000000000091"
	fCal   = "a0000000-0000-4000-8000-000000000092"
	sRecur = "a0000000-0000-4000-8000-000000000093"
	tTime  = "a0000000-0000-4000-8000-000000000094"
)

// upgradeSeeds has one row per migration, in order: a new migration adds its row (CONTRIBUTING.md,
// "Adding a migration"), and TestUpgradePath fails until it does.
var upgradeSeeds = []upgradeSeed{
	{version: 1, seed: `
		INSERT INTO users (id, email, name, password_hash) VALUES ('` + uAnn + `', 'ann@example.com', 'Ann', 'h');
		INSERT INTO users (id, email, password_hash, is_service) VALUES ('` + uBot + `', 'bot@agents.test', 'x', true);
		INSERT INTO organizations (id, name, slug, owner_id) VALUES ('` + oAcme + `', 'Acme', 'acme', '` + uAnn + `');
		INSERT INTO organization_members VALUES ('` + oAcme + `', '` + uAnn + `', 'owner');
		INSERT INTO workspaces (id, organization_id, name, slug, owner_id)
			VALUES ('` + wEng + `', '` + oAcme + `', 'Engineering', 'eng', '` + uAnn + `');
		INSERT INTO workspace_members VALUES ('` + wEng + `', '` + uAnn + `', 'admin', 'owner');
		INSERT INTO api_tokens (id, user_id, name, prefix, secret_hash, scopes)
			VALUES (gen_random_uuid(), '` + uAnn + `', 'ci', 'pilot_pat_x', '\x01', '{projects:read}');`,
		survives: `SELECT (SELECT name FROM users WHERE id = '` + uAnn + `') = 'Ann'
			AND EXISTS (SELECT 1 FROM workspace_members WHERE workspace_id = '` + wEng + `' AND role = 'admin')
			AND (SELECT scopes FROM api_tokens WHERE user_id = '` + uAnn + `') = '{projects:read}'
			AND (SELECT slug FROM organizations WHERE id = '` + oAcme + `') = 'acme'`},
	{version: 2, seed: `
		INSERT INTO projects (id, workspace_id, name, created_by) VALUES ('` + pLnch + `', '` + wEng + `', 'Launch', '` +
		uAnn + `');
		INSERT INTO project_members VALUES ('` + pLnch + `', '` + uAnn + `');
		INSERT INTO columns (id, project_id, name, position) VALUES ('` + cTodo + `', '` + pLnch + `', 'To do', 0);
		INSERT INTO cards (id, project_id, column_id, title, priority, created_by) VALUES
			('` + kCard + `', '` + pLnch + `', '` + cTodo + `', 'Write the docs', 'high', '` + uAnn + `'),
			('` + kTwo + `', '` + pLnch + `', '` + cTodo + `', 'Ship', 'low', '` + uAnn + `');
		INSERT INTO checklist_items (id, card_id, title, done, position)
			VALUES (gen_random_uuid(), '` + kCard + `', 'Outline', true, 0);
		INSERT INTO labels (id, project_id, name, color) VALUES (gen_random_uuid(), '` + pLnch + `', 'docs', '#00f');
		INSERT INTO card_labels SELECT '` + kCard + `', id FROM labels WHERE name = 'docs';
		INSERT INTO custom_fields (id, project_id, name, type) VALUES (gen_random_uuid(), '` + pLnch + `', 'Points',
			'number');
		INSERT INTO card_custom_values SELECT '` + kCard + `', id, '3' FROM custom_fields WHERE name = 'Points';
		INSERT INTO card_relations (id, project_id, card_id, target_card_id, type, created_by)
			VALUES (gen_random_uuid(), '` + pLnch + `', '` + kCard + `', '` + kTwo + `', 'blocks', '` + uAnn + `');
		INSERT INTO comments (id, card_id, author_id, content)
			VALUES (gen_random_uuid(), '` + kCard + `', '` + uAnn + `', 'first draft');
		INSERT INTO attachments (id, card_id, uploaded_by, original_name, mime_type, size, storage_key)
			VALUES (gen_random_uuid(), '` + kCard + `', '` + uAnn + `', 'a.txt', 'text/plain', 5, 'k/a.txt');
		INSERT INTO activities (id, project_id, card_id, actor_id, type)
			VALUES ('` + aAct + `', '` + pLnch + `', '` + kCard + `', '` + uAnn + `', 'card_created');
		INSERT INTO notifications (id, user_id, activity_id) VALUES (gen_random_uuid(), '` + uAnn + `', '` + aAct + `');`,
		survives: `SELECT (SELECT title FROM cards WHERE id = '` + kCard + `') = 'Write the docs'
			AND (SELECT priority FROM cards WHERE id = '` + kCard + `') = 'high'
			AND (SELECT done FROM checklist_items WHERE card_id = '` + kCard + `')
			AND EXISTS (SELECT 1 FROM card_labels WHERE card_id = '` + kCard + `')
			AND (SELECT value FROM card_custom_values WHERE card_id = '` + kCard + `') = '3'
			AND EXISTS (SELECT 1 FROM card_relations WHERE card_id = '` + kCard + `' AND target_card_id = '` + kTwo + `')
			AND (SELECT content FROM comments WHERE card_id = '` + kCard + `') = 'first draft'
			AND (SELECT storage_key FROM attachments WHERE card_id = '` + kCard + `') = 'k/a.txt'
			AND (SELECT type FROM activities WHERE id = '` + aAct + `') = 'card_created'
			AND EXISTS (SELECT 1 FROM notifications WHERE activity_id = '` + aAct + `')`},
	{version: 3, seed: `
		INSERT INTO automation_rules (id, project_id, name, trigger, action, created_by)
			VALUES (gen_random_uuid(), '` + pLnch + `', 'Move done', 'checklist_complete', '{"type":"move_card"}', '` +
		uAnn + `');`,
		survives: `SELECT (SELECT trigger FROM automation_rules WHERE name = 'Move done') = 'checklist_complete'`},
	{version: 4, seed: `
		INSERT INTO agents (id, workspace_id, user_id, name, slug, created_by)
			VALUES ('` + gBot + `', '` + wEng + `', '` + uBot + `', 'Planner', 'planner', '` + uAnn + `');
		INSERT INTO agent_missions (id, workspace_id, agent_id, card_id, source, objective, status, max_steps, event_seq,
			created_by) VALUES ('` + mMis + `', '` + wEng + `', '` + gBot + `', '` + kCard + `', 'agent', 'Plan it',
			'completed', 10, 2, '` + uAnn + `');
		INSERT INTO mission_steps (mission_id, step_key, seq, tool, args, outcome)
			VALUES ('` + mMis + `', 's1', 1, 'add_comment', '{}', 'applied');
		INSERT INTO mission_events (mission_id, seq, type, status, message)
			VALUES ('` + mMis + `', 1, 'status', 'running', 'started'), ('` + mMis + `', 2, 'done', 'completed', 'done');`,
		survives: `SELECT (SELECT status FROM agent_missions WHERE id = '` + mMis + `') = 'completed'
			AND EXISTS (SELECT 1 FROM mission_steps WHERE mission_id = '` + mMis + `' AND step_key = 's1')
			AND (SELECT array_agg(message ORDER BY seq) FROM stream_events WHERE stream_id = '` + mMis + `')
				= '{started,done}'`},
	{version: 5, none: "card parts' functions and triggers"},
	{version: 6, none: "activity recording functions"},
	{version: 7, none: "the card list's function"},
	{version: 8, none: "a foreign key on rows seeded at 2"},
	{version: 9, none: "access-change notifications (triggers)"},
	{version: 10, none: "activity recording functions"},
	{version: 11, seed: `
		INSERT INTO documents (id, workspace_id, title, content, context_type, context_id, status, author_id)
			VALUES ('` + dDoc + `', '` + wEng + `', 'Runbook', '# Deploy', 'workspace', '` + wEng + `', 'approved', '` +
		uAnn + `');
		INSERT INTO document_reviews (id, document_id, reviewer_id, status, notes)
			VALUES (gen_random_uuid(), '` + dDoc + `', '` + uAnn + `', 'approved', 'ok');
		INSERT INTO card_documents VALUES ('` + kCard + `', '` + dDoc + `', '` + uAnn + `');`,
		survives: `SELECT (SELECT content FROM documents WHERE id = '` + dDoc + `') = '# Deploy'
			AND (SELECT notes FROM document_reviews WHERE document_id = '` + dDoc + `') = 'ok'
			AND EXISTS (SELECT 1 FROM card_documents WHERE document_id = '` + dDoc + `')`},
	{version: 12, seed: `
		INSERT INTO pilotage_priorities (id, workspace_id, label, created_by, updated_by)
			VALUES (gen_random_uuid(), '` + wEng + `', 'Ship v1', '` + uAnn + `', '` + uAnn + `');`,
		survives: `SELECT EXISTS (SELECT 1 FROM pilotage_priorities WHERE label = 'Ship v1')`},
	{version: 13, none: "moves mission events into streams: the check of 4 reads them there"},
	{version: 14, seed: `
		INSERT INTO project_drafts (id, workspace_id, name, created_by)
			VALUES (gen_random_uuid(), '` + wEng + `', 'Field Notes', '` + uAnn + `');`,
		survives: `SELECT EXISTS (SELECT 1 FROM project_drafts WHERE name = 'Field Notes')`},
	{version: 15, none: "columns with defaults on missions"},
	{version: 16, seed: `
		INSERT INTO pipelines (id, workspace_id, name, steps, created_by)
			VALUES ('` + lPipe + `', '` + wEng + `', 'Release', '[{"id":"a","type":"notify"}]', '` + uAnn + `');
		INSERT INTO pipeline_runs (id, pipeline_id, workspace_id, pipeline_name, status, started_by)
			VALUES ('` + rRun + `', '` + lPipe + `', '` + wEng + `', 'Release', 'completed', '` + uAnn + `');
		INSERT INTO pipeline_run_steps (run_id, step_id, position, type, params, needs, status)
			VALUES ('` + rRun + `', 'a', 0, 'notify', '{}', '{}', 'completed');`,
		survives: `SELECT (SELECT status FROM pipeline_runs WHERE id = '` + rRun + `') = 'completed'
			AND (SELECT steps FROM pipelines WHERE id = '` + lPipe + `') = '[{"id":"a","type":"notify"}]'
			AND EXISTS (SELECT 1 FROM pipeline_run_steps WHERE run_id = '` + rRun + `' AND status = 'completed')`},
	{version: 17, none: "a mission source's check constraint"},
	{version: 18, none: "rate-limit and orphaned-file tables whose rows live minutes"},
	{version: 19, none: "column counts, rebuilt from the cards seeded at 2 (checked below)",
		survives: `SELECT EXISTS (SELECT 1 FROM cards WHERE id = '` + kCard + `')`},
	{version: 20, none: "signing keys are made by the api at start"},
	{version: 21, seed: `
		INSERT INTO sessions (id, user_id, device, expires_at)
			VALUES ('` + sSess + `', '` + uAnn + `', 'Firefox on Linux', now() + interval '30 days');`,
		survives: `SELECT (SELECT device FROM sessions WHERE id = '` + sSess + `') = 'Firefox on Linux'`},
	{version: 22, none: "recovery codes and e-mailed tokens, short-lived"},
	{version: 23, none: "functions for leaving a workspace"},
	{version: 26, none: "the card list's page function"},
	{version: 27, none: "notification triggers"},
	{version: 28, seed: `
		INSERT INTO webhooks (id, workspace_id, url, events, secret, created_by)
			VALUES ('` + hHook + `', '` + wEng + `', 'https://hooks.example.com/p', '{card_created}', '\x0102', '` +
		uAnn + `');
		INSERT INTO webhook_deliveries (id, workspace_id, webhook_id, event_type, status)
			VALUES ('d1', '` + wEng + `', '` + hHook + `', 'card_created', 'succeeded');`,
		survives: `SELECT (SELECT secret FROM webhooks WHERE id = '` + hHook + `') = '\x0102'
			AND (SELECT status FROM webhook_deliveries WHERE id = 'd1') = 'succeeded'`},
	{version: 29, none: "gives activities a sequence (the activity seeded at 2 gets one)",
		survives: `SELECT (SELECT seq FROM activities WHERE id = '` + aAct + `') IS NOT NULL`},
	{version: 30, none: "drops foreign keys"},
	{version: 31, none: "login failures live an hour"},
	{version: 32, none: "an index"},
	{version: 33, none: "a column with no value for existing tokens"},
	{version: 34, none: "functions for leaving"},
	{version: 35, none: "functions for leaving"},
	{version: 36, none: "comments' search column, computed from the comment seeded at 2",
		survives: `SELECT (SELECT search_vector FROM comments WHERE card_id = '` + kCard + `') @@ 'draft'::tsquery`},
	{version: 37, none: "a trigger's check constraint"},
	{version: 38, seed: `
		INSERT INTO projects (id, workspace_id, name, created_by, archived_at)
			VALUES ('` + pOld + `', '` + wEng + `', 'Old launch', '` + uAnn + `', '2026-01-02T00:00:00Z');`,
		survives: `SELECT (SELECT archived_at FROM projects WHERE id = '` + pOld + `') = '2026-01-02T00:00:00Z'
			AND (SELECT archived_at FROM projects WHERE id = '` + pLnch + `') IS NULL`},
	{version: 39, none: "agents' enabled and model columns, with defaults for the agent seeded at 4",
		survives: `SELECT (SELECT enabled AND model = '' FROM agents WHERE id = '` + gBot + `')`},
	{version: 40, seed: `
		INSERT INTO agent_missions (id, workspace_id, agent_id, source, objective, status, max_steps, created_by,
			question, input_deadline, conversation)
			VALUES ('` + mAsk + `', '` + wEng + `', '` + gBot + `', 'agent', 'Which first?', 'awaiting_input', 5,
				'` + uAnn + `', '{"question": "Tests or docs?", "options": ["Tests", "Docs"]}', '2026-01-05T00:00:00Z',
				'{"turn": 1, "messages": [], "askCallId": "call_1"}');`,
		survives: `SELECT (SELECT status = 'awaiting_input' AND question->>'question' = 'Tests or docs?'
			AND conversation->>'askCallId' = 'call_1' AND input_deadline = '2026-01-05T00:00:00Z'
			FROM agent_missions WHERE id = '` + mAsk + `')`},
	{version: 41, seed: `
		INSERT INTO agent_usage (workspace_id, agent_id, day, model_turns, prompt_tokens, completion_tokens)
			VALUES ('` + wEng + `', '` + gBot + `', '2026-01-02', 3, 100, 20);
		INSERT INTO workspace_agent_settings (workspace_id, max_tokens_per_day) VALUES ('` + wEng + `', 5000);
		UPDATE activities SET agent_id = '` + gBot + `', on_behalf_of = '` + uAnn + `' WHERE id = '` + aAct + `';
		UPDATE agent_missions SET model_turns = 2, prompt_tokens = 10, completion_tokens = 5, waiting_ms = 1500
			WHERE id = '` + mMis + `';`,
		survives: `SELECT (SELECT prompt_tokens FROM agent_usage WHERE agent_id = '` + gBot + `') = 100
			AND (SELECT max_tokens_per_day FROM workspace_agent_settings WHERE workspace_id = '` + wEng + `') = 5000
			AND (SELECT on_behalf_of FROM activities WHERE id = '` + aAct + `') = '` + uAnn + `'
			AND (SELECT waiting_ms FROM agent_missions WHERE id = '` + mMis + `') = 1500`},
	{version: 42, seed: `
		INSERT INTO user_identities (id, user_id, provider, subject, email)
			VALUES (gen_random_uuid(), '` + uAnn + `', 'corp', 'sub-ann', 'ann@example.com');
		INSERT INTO oidc_logins (state_hash, provider, nonce, code_verifier, expires_at)
			VALUES ('\x01', 'corp', 'n', 'v', now() + interval '10 minutes');`,
		survives: `SELECT (SELECT user_id FROM user_identities WHERE provider = 'corp' AND subject = 'sub-ann') = '` +
			uAnn + `'`},
	{version: 43, seed: `
		INSERT INTO imports (id, workspace_id, source, file_name, file_sha256, file_size, status, items_read,
			items_created, report, created_by)
			VALUES ('` + iImp + `', '` + wEng + `', 'trello', 'board.json', 'ab12', 10, 'completed', 4, 3,
				'{"projects": [{"name": "Launch"}], "skipped": []}', '` + uAnn + `');`,
		survives: `SELECT (SELECT items_created FROM imports WHERE id = '` + iImp + `') = 3
			AND (SELECT report->'projects'->0->>'name' FROM imports WHERE id = '` + iImp + `') = 'Launch'`},
	{version: 44, seed: `
		INSERT INTO audit_log (id, organization_id, kind, actor_id, client_ip, target_type, target_id, changes)
			VALUES ('` + uAudit + `', '` + oAcme + `', 'member_added', '` + uAnn + `', '192.0.2.1', 'user', '` + uBot + `',
			'{"after": {"role": "member"}}');`,
		survives: `SELECT (SELECT changes->'after'->>'role' FROM audit_log WHERE id = '` + uAudit + `') = 'member'`},
	{version: 45, seed: `
		INSERT INTO card_series (id, project_id, template_card_id, rule, timezone, mode, starts_at, next_at, created_by)
			VALUES ('` + sRecur + `', '` + pLnch + `', '` + kCard + `', 'FREQ=WEEKLY;BYDAY=MO', 'Europe/Paris', 'on_schedule',
			'2026-03-02 08:00+00', '2026-03-09 08:00+00', '` + uAnn + `');
		INSERT INTO card_occurrences (series_id, occurs_at, card_id) VALUES ('` + sRecur + `', '2026-03-02 08:00+00', '` +
		kCard + `');`,
		survives: `SELECT (SELECT rule FROM card_series WHERE id = '` + sRecur + `') = 'FREQ=WEEKLY;BYDAY=MO'
			AND (SELECT card_id FROM card_occurrences WHERE series_id = '` + sRecur + `') = '` + kCard + `'`},
	{version: 46, seed: `
		UPDATE cards SET estimate_seconds = 7200, time_spent_seconds = 1800 WHERE id = '` + kCard + `';
		INSERT INTO time_entries (id, workspace_id, project_id, card_id, user_id, source, duration_seconds, work_date,
			note) VALUES ('` + tTime + `', '` + wEng + `', '` + pLnch + `', '` + kCard + `', '` + uAnn + `', 'manual', 1800,
			'2026-03-02', 'review');`,
		survives: `SELECT (SELECT estimate_seconds = 7200 AND time_spent_seconds = 1800 FROM cards WHERE id = '` + kCard + `')
			AND (SELECT note = 'review' AND duration_seconds = 1800 FROM time_entries WHERE id = '` + tTime + `')`},
	{version: 47, seed: `
		INSERT INTO calendar_feeds (id, user_id, name, kind, project_id, prefix, secret_hash)
			VALUES ('` + fCal + `', '` + uAnn + `', 'Launch', 'project', '` + pLnch + `', 'pilot_cal_ab12cd', '\x02');`,
		survives: `SELECT (SELECT project_id FROM calendar_feeds WHERE id = '` + fCal + `') = '` + pLnch + `'`},
	{version: 48, seed: `
		INSERT INTO organization_domains (id, organization_id, domain, created_by)
			VALUES (gen_random_uuid(), '` + oAcme + `', 'acme.test', '` + uAnn + `');`,
		survives: `SELECT (SELECT organization_id FROM organization_domains WHERE domain = 'acme.test') = '` + oAcme + `'`},
	{version: 49, seed: `
		INSERT INTO oidc_logins (state_hash, provider, nonce, code_verifier, expires_at, link_user_id, link_session_id)
			VALUES ('\x49', 'corp', 'n', 'v', now() + interval '10 minutes', '` + uAnn + `', '` + sSess + `');`,
		survives: `SELECT (SELECT link_session_id FROM oidc_logins WHERE state_hash = '\x49') = '` + sSess + `'`},
}

// TestUpgradePath builds a database at every earlier migration level with the seeds' rows, migrates it
// to the newest, and checks every seed's rows survived: an upgrade from any release keeps its data.
func TestUpgradePath(t *testing.T) {
	status, err := db.MigrationStatus(context.Background(), pgtest.Pool(t))
	require.NoError(t, err)
	var known []int64
	for _, m := range status {
		known = append(known, m.Version)
	}
	var seeded []int64
	for _, s := range upgradeSeeds {
		seeded = append(seeded, s.version)
		require.True(t, (s.seed == "") != (s.none == ""), "migration %d: a seed or the reason it has none", s.version)
		require.True(t, s.seed == "" || s.survives != "", "migration %d: a seed needs its check", s.version)
	}
	require.Equal(t, known, seeded, "every migration has its row in upgradeSeeds, in order (CONTRIBUTING.md)")

	for _, level := range known[:len(known)-1] {
		t.Run(fmt.Sprintf("from_%05d", level), func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			dbPool := pgtest.EmptyPool(t)
			var applied []upgradeSeed
			for _, s := range upgradeSeeds {
				if s.version > level {
					break
				}
				require.NoError(t, db.MigrateTo(ctx, dbPool, s.version), "migrate to %d", s.version)
				if s.seed != "" {
					_, err := dbPool.Exec(ctx, s.seed)
					require.NoError(t, err, "seed of migration %d", s.version)
				}
				applied = append(applied, s)
			}
			require.NoError(t, db.Migrate(ctx, dbPool), "migrate from %d to the newest", level)
			for _, s := range applied {
				if s.survives == "" {
					continue
				}
				var ok bool
				require.NoError(t, dbPool.QueryRow(ctx, s.survives).Scan(&ok), "check of migration %d", s.version)
				require.True(t, ok, "the rows seeded at migration %d did not survive the upgrade from %d:\n%s",
					s.version, level, strings.TrimSpace(s.survives))
			}
		})
	}
}
