// Package jobs holds the River job argument types: the contract between the api, which enqueues jobs
// inside the transaction of the write that causes them, and the workers, which run them.
package jobs

// Queue names. Workers subscribe to each with its own concurrency.
const (
	QueueDefault = "default"
	QueueEmail   = "email"
)

// SendEmailArgs sends one e-mail recorded for a domain event (an invitation, say). Topic and RefID make
// the send idempotent: a retried job reuses the outbox row instead of writing a second one.
type SendEmailArgs struct {
	Topic   string `json:"topic"`
	RefID   string `json:"refId"`
	To      string `json:"to"`
	Subject string `json:"subject"`
	Body    string `json:"body"`
}

// Kind implements river.JobArgs.
func (SendEmailArgs) Kind() string { return "send_email" }

// NotifyActivityArgs fans one activity out to notifications for the users it concerns.
type NotifyActivityArgs struct {
	ActivityID string `json:"activityId"`
}

// Kind implements river.JobArgs.
func (NotifyActivityArgs) Kind() string { return "notify_activity" }
