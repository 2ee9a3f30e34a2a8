-- +goose Up
-- The task_labeled trigger: a rule that runs when a label is put on a card.
ALTER TABLE automation_rules DROP CONSTRAINT automation_rules_trigger_check,
    ADD CONSTRAINT automation_rules_trigger_check CHECK (trigger IN ('task_moved', 'task_created', 'checklist_complete',
        'due_date_reached', 'task_status_changed', 'task_assigned', 'task_added_to_board', 'task_labeled'));

-- +goose Down
DELETE FROM automation_rules WHERE trigger = 'task_labeled';
ALTER TABLE automation_rules DROP CONSTRAINT automation_rules_trigger_check,
    ADD CONSTRAINT automation_rules_trigger_check CHECK (trigger IN ('task_moved', 'task_created', 'checklist_complete',
        'due_date_reached', 'task_status_changed', 'task_assigned', 'task_added_to_board'));
