package workers

import (
	"context"
	"encoding/base64"
	"errors"
	"io"
	"mime"
	"net"
	netmail "net/mail"
	"net/textproto"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertest"
	"github.com/riverqueue/river/rivertype"
	"github.com/stretchr/testify/require"

	"github.com/pilot-dev/pilot/db"
	"github.com/pilot-dev/pilot/db/engines"
	"github.com/pilot-dev/pilot/db/identity"
	"github.com/pilot-dev/pilot/db/tenancy"
	"github.com/pilot-dev/pilot/internal/mail"
	"github.com/pilot-dev/pilot/internal/testfactory"
	"github.com/pilot-dev/pilot/jobs"
)

// smtpMessage is one message the fake server accepted.
type smtpMessage struct {
	Auth string // decoded AUTH PLAIN response: "\x00user\x00pass"
	From string
	To   []string
	Data string
}

// fakeSMTP is an in-process SMTP server speaking just enough of RFC 5321 for net/smtp: a greeting,
// EHLO advertising AUTH PLAIN (no STARTTLS), AUTH, MAIL, RCPT, DATA and QUIT.
type fakeSMTP struct {
	ln net.Listener
	wg sync.WaitGroup

	mu   sync.Mutex
	msgs []smtpMessage
	// rcptReplies answer the next RCPT commands instead of 250 (e.g. "451 …", "550 …").
	rcptReplies []string
	// dropQuit closes the connection on QUIT without answering.
	dropQuit bool
}

func newFakeSMTP(t *testing.T) *fakeSMTP {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	s := &fakeSMTP{ln: ln}
	s.wg.Add(1)
	go s.serve()
	t.Cleanup(func() {
		_ = ln.Close()
		s.wg.Wait()
	})
	return s
}

func (s *fakeSMTP) port() string {
	return strconv.Itoa(s.ln.Addr().(*net.TCPAddr).Port)
}

func (s *fakeSMTP) messages() []smtpMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]smtpMessage(nil), s.msgs...)
}

func (s *fakeSMTP) serve() {
	defer s.wg.Done()
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.handle(c)
		}()
	}
}

func (s *fakeSMTP) handle(c net.Conn) {
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(30 * time.Second))
	tp := textproto.NewConn(c)
	reply := func(lines ...string) bool {
		for _, l := range lines {
			if err := tp.PrintfLine("%s", l); err != nil {
				return false
			}
		}
		return true
	}
	if !reply("220 fake.smtp.test ESMTP ready") {
		return
	}
	var cur smtpMessage
	var auth string
	for {
		line, err := tp.ReadLine()
		if err != nil {
			return
		}
		verb, arg, _ := strings.Cut(line, " ")
		switch strings.ToUpper(verb) {
		case "EHLO":
			reply("250-fake.smtp.test greets "+arg, "250-AUTH PLAIN", "250 OK")
		case "HELO":
			reply("250 fake.smtp.test")
		case "AUTH":
			mech, resp, _ := strings.Cut(arg, " ")
			if !strings.EqualFold(mech, "PLAIN") {
				reply("504 unrecognized authentication type")
				continue
			}
			if resp == "" {
				reply("334 ")
				if resp, err = tp.ReadLine(); err != nil {
					return
				}
			}
			dec, err := base64.StdEncoding.DecodeString(resp)
			if err != nil {
				reply("501 bad base64")
				continue
			}
			auth = string(dec)
			reply("235 2.7.0 authentication successful")
		case "MAIL":
			cur = smtpMessage{Auth: auth, From: angle(arg)}
			reply("250 OK")
		case "RCPT":
			s.mu.Lock()
			var refuse string
			if len(s.rcptReplies) > 0 {
				refuse, s.rcptReplies = s.rcptReplies[0], s.rcptReplies[1:]
			}
			s.mu.Unlock()
			if refuse != "" {
				reply(refuse)
				continue
			}
			cur.To = append(cur.To, angle(arg))
			reply("250 OK")
		case "DATA":
			if !reply("354 end data with <CR><LF>.<CR><LF>") {
				return
			}
			data, err := tp.ReadDotBytes()
			if err != nil {
				return
			}
			cur.Data = string(data)
			s.mu.Lock()
			s.msgs = append(s.msgs, cur)
			s.mu.Unlock()
			cur = smtpMessage{Auth: auth}
			reply("250 OK queued")
		case "RSET":
			cur = smtpMessage{Auth: auth}
			reply("250 OK")
		case "NOOP":
			reply("250 OK")
		case "QUIT":
			s.mu.Lock()
			drop := s.dropQuit
			s.mu.Unlock()
			if !drop {
				reply("221 bye")
			}
			return
		default:
			reply("502 command not implemented")
		}
	}
}

// angle extracts the address of "FROM:<a@b>" or "TO:<a@b> PARAM".
func angle(arg string) string {
	if i := strings.Index(arg, "<"); i >= 0 {
		if j := strings.Index(arg[i:], ">"); j >= 0 {
			return arg[i+1 : i+j]
		}
	}
	return arg
}

// emailFixture is a registered user with a workspace, and an invitation to it.
type emailFixture struct {
	reg       identity.Registration
	inv       db.WorkspaceInvitation
	acceptURL string
}

// inviteThroughStore writes an invitation with the store's real write path, which enqueues its e-mail.
func inviteThroughStore(t *testing.T, b *testBundle, to string) emailFixture {
	t.Helper()
	reg := testfactory.User(t, b.Engines, &testfactory.UserOpts{Email: testfactory.Ptr("alice@example.com")})
	inv := testfactory.Invitation(t, b.Engines, reg, &testfactory.InvitationOpts{Email: &to,
		Token: testfactory.Ptr("tok-" + to)})
	return emailFixture{reg: reg, inv: inv, acceptURL: "http://pilot.test/invitations/tok-" + to + "/accept"}
}

func outbox(t *testing.T, eng *engines.Engines) []db.EmailOutbox {
	t.Helper()
	rows, err := eng.Notifications.Outbox(context.Background())
	require.NoError(t, err)
	return rows
}

func newSMTPMailer(t *testing.T, srv *fakeSMTP) mail.Sender {
	t.Helper()
	m, err := mail.NewSMTP("smtp://user:pass@127.0.0.1:"+srv.port(), "Pilot <no-reply@pilot.test>")
	require.NoError(t, err)
	return m
}

func TestEmailWithoutSMTPStaysInOutbox(t *testing.T) {
	t.Parallel()
	b := setup(t)
	events := b.startWorker(t, Config{})
	f := inviteThroughStore(t, b, "Invitee@Example.com")

	waitJob(t, events, jobs.SendEmailArgs{}.Kind())

	rows := outbox(t, b.Engines)
	require.Len(t, rows, 1)
	row := rows[0]
	require.Equal(t, "outbox", row.Transport)
	require.Nil(t, row.SentAt)
	require.Equal(t, "invitee@example.com", row.ToAddress)
	require.Equal(t, "invitation", row.Kind)
	require.NotNil(t, row.RefID)
	require.Equal(t, f.inv.ID, *row.RefID)
	require.Equal(t, "You are invited to "+f.reg.Workspace.Name+" on Pilot", row.Subject)
	require.Contains(t, row.Body, f.acceptURL)
	require.Contains(t, row.Body, "Alice")
}

func TestEmailThroughSMTP(t *testing.T) {
	t.Parallel()
	srv := newFakeSMTP(t)
	b := setup(t)
	events := b.startWorker(t, Config{Mailer: newSMTPMailer(t, srv)})
	f := inviteThroughStore(t, b, "invitee@example.com")

	waitJob(t, events, jobs.SendEmailArgs{}.Kind())

	msgs := srv.messages()
	require.Len(t, msgs, 1)
	msg := msgs[0]
	require.Equal(t, "\x00user\x00pass", msg.Auth)
	require.Equal(t, "no-reply@pilot.test", msg.From)
	require.Equal(t, []string{"invitee@example.com"}, msg.To)
	parsed, err := netmail.ReadMessage(strings.NewReader(msg.Data))
	require.NoError(t, err, "message: %q", msg.Data)
	require.Equal(t, "invitee@example.com", parsed.Header.Get("To"))
	require.Equal(t, "You are invited to "+f.reg.Workspace.Name+" on Pilot", parsed.Header.Get("Subject"))
	from, err := parsed.Header.AddressList("From")
	require.NoError(t, err)
	require.Equal(t, []*netmail.Address{{Name: "Pilot", Address: "no-reply@pilot.test"}}, from)
	date, err := parsed.Header.Date()
	require.NoError(t, err, "RFC 5322 requires a Date header")
	require.WithinDuration(t, time.Now(), date, time.Minute)
	require.Regexp(t, `^<[0-9a-f]+@pilot\.test>$`, parsed.Header.Get("Message-Id"))
	require.Equal(t, "text/plain; charset=utf-8", parsed.Header.Get("Content-Type"))
	body, err := io.ReadAll(parsed.Body)
	require.NoError(t, err)
	require.Contains(t, string(body), f.acceptURL)

	rows := outbox(t, b.Engines)
	require.Len(t, rows, 1)
	require.Equal(t, "smtp", rows[0].Transport)
	require.NotNil(t, rows[0].SentAt)
	require.WithinDuration(t, time.Now(), *rows[0].SentAt, time.Minute)
	require.Equal(t, f.inv.ID, *rows[0].RefID)
}

// emailWorker works e-mail jobs inline with River's test worker (mailer sends them), in a transaction
// rolled back at cleanup.
func emailWorker(t *testing.T,
	mailer mail.Sender) (*engines.Engines, *rivertest.Worker[jobs.SendEmailArgs, pgx.Tx], pgx.Tx) {
	t.Helper()
	b := setup(t)
	w := testWorker(t, b, &EmailWorker{deps: b.withMailer(mailer)})
	tx, err := b.Pool.Begin(context.Background())
	require.NoError(t, err)
	t.Cleanup(func() { _ = tx.Rollback(context.Background()) })
	return b.Engines, w, tx
}

func TestEmailJobIsIdempotent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := newFakeSMTP(t)
	eng, w, tx := emailWorker(t, newSMTPMailer(t, srv))
	args := jobs.SendEmailArgs{Topic: "test", RefID: db.NewID(), To: "twice@example.com", Subject: "Hello",
		Body: "Line one\nLine two\n.\n"}

	for i := range 2 {
		res, err := w.Work(ctx, t, tx, args, &river.InsertOpts{Queue: jobs.QueueEmail})
		require.NoError(t, err, "attempt %d", i)
		require.Equal(t, river.EventKindJobCompleted, res.EventKind, "attempt %d", i)
	}

	rows := outbox(t, eng)
	require.Len(t, rows, 1)
	require.Equal(t, args.RefID, *rows[0].RefID)
	require.NotNil(t, rows[0].SentAt)
	msgs := srv.messages()
	require.Len(t, msgs, 1, "the second job must not send again")
	require.Equal(t, []string{"twice@example.com"}, msgs[0].To)
	_, body, _ := strings.Cut(msgs[0].Data, "\n\n")
	require.Equal(t, "Line one\nLine two\n.\n", body, "dot-stuffing must round-trip")

	// Another reference is another e-mail.
	other := args
	other.RefID = db.NewID()
	res, err := w.Work(ctx, t, tx, other, nil)
	require.NoError(t, err)
	require.Equal(t, river.EventKindJobCompleted, res.EventKind)
	require.Len(t, outbox(t, eng), 2)
	require.Len(t, srv.messages(), 2)
}

func TestEmailOutboxOnlyIsIdempotent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eng, w, tx := emailWorker(t, nil)
	args := jobs.SendEmailArgs{Topic: "test", RefID: db.NewID(), To: "a@example.com", Subject: "S", Body: "B"}
	for range 2 {
		res, err := w.Work(ctx, t, tx, args, nil)
		require.NoError(t, err)
		require.Equal(t, river.EventKindJobCompleted, res.EventKind)
	}
	rows := outbox(t, eng)
	require.Len(t, rows, 1)
	require.Equal(t, "outbox", rows[0].Transport)
	require.Nil(t, rows[0].SentAt)
}

func TestEmailRetryAfterSMTPFailureSendsOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := newFakeSMTP(t)
	srv.rcptReplies = []string{"451 4.3.0 try again later"}
	eng, w, tx := emailWorker(t, newSMTPMailer(t, srv))
	args := jobs.SendEmailArgs{Topic: "test", RefID: db.NewID(), To: "retry@example.com", Subject: "S", Body: "B"}

	res, err := w.Work(ctx, t, tx, args, nil)
	require.Error(t, err)
	require.Contains(t, err.Error(), "451")
	require.Equal(t, river.EventKindJobFailed, res.EventKind)
	// Retried: scheduled for later, or available at once for an early attempt.
	require.Contains(t, []rivertype.JobState{rivertype.JobStateRetryable, rivertype.JobStateAvailable}, res.Job.State)
	require.Len(t, res.Job.Errors, 1)
	require.Contains(t, res.Job.Errors[0].Error, "451")
	rows := outbox(t, eng)
	require.Len(t, rows, 1)
	require.Nil(t, rows[0].SentAt, "a refused message is not sent")
	require.Empty(t, srv.messages())

	res, err = w.WorkJob(ctx, t, tx, res.Job)
	require.NoError(t, err)
	require.Equal(t, river.EventKindJobCompleted, res.EventKind)
	rows = outbox(t, eng)
	require.Len(t, rows, 1)
	require.NotNil(t, rows[0].SentAt)
	require.Len(t, srv.messages(), 1)
}

// TestSMTPSendReportsRefusedConnection: a server that is down is an error, never a silent success.
func TestSMTPSendReportsRefusedConnection(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	m, err := mail.NewSMTP("smtp://user:pass@"+addr, "Pilot <no-reply@pilot.test>")
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err = m.Send(ctx, "x@example.com", "S", "B")
	require.Error(t, err)
	var opErr *net.OpError
	require.True(t, errors.As(err, &opErr), "err: %v", err)
}

func TestEmailPermanentRejectionIsCancelledNotRetried(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := newFakeSMTP(t)
	srv.rcptReplies = []string{"550 5.1.1 no such mailbox"}
	eng, w, tx := emailWorker(t, newSMTPMailer(t, srv))
	args := jobs.SendEmailArgs{Topic: "test", RefID: db.NewID(), To: "ghost@example.com", Subject: "S", Body: "B"}

	res, err := w.Work(ctx, t, tx, args, nil)
	require.NoError(t, err, "a cancel is not an error of the test worker")
	require.Equal(t, river.EventKindJobCancelled, res.EventKind)
	require.Equal(t, rivertype.JobStateCancelled, res.Job.State)
	require.Len(t, res.Job.Errors, 1)
	require.Contains(t, res.Job.Errors[0].Error, "550")
	rows := outbox(t, eng)
	require.Len(t, rows, 1)
	require.Nil(t, rows[0].SentAt)
	require.Empty(t, srv.messages())
}

// TestInvitationEmailsCancelledWithOrganization: deleting an organization cancels the e-mails of its
// pending invitations in the same transaction, and an invitation e-mail whose invitation is gone by the
// time a worker takes it (withdrawn or accepted before its job ran) is not sent.
func TestInvitationEmailsCancelledWithOrganization(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	alice := testfactory.User(t, b.Engines, &testfactory.UserOpts{Email: testfactory.Ptr("alice@example.com")})
	org, err := b.Tenancy.CreateOrganization(ctx, alice.User.ID, "Acme", "acme")
	require.NoError(t, err)
	ws, err := b.Tenancy.CreateWorkspace(ctx, org.ID, alice.User.ID, "Eng", "eng")
	require.NoError(t, err)
	invite := func(email string) db.WorkspaceInvitation {
		inv := testfactory.Invitation(t, b.Engines, alice, &testfactory.InvitationOpts{Email: &email, Workspace: &ws})
		require.NotNil(t, inv.EmailJobID)
		return inv
	}
	gone := invite("bob@example.com")
	// other: alice's personal workspace
	other := testfactory.Invitation(t, b.Engines, alice,
		&testfactory.InvitationOpts{Email: testfactory.Ptr("carol@example.com")})

	require.NoError(t, b.Tenancy.DeleteOrganization(ctx, org.ID))
	job, err := b.River.JobGet(ctx, *gone.EmailJobID)
	require.NoError(t, err)
	require.Equal(t, rivertype.JobStateCancelled, job.State)
	job, err = b.River.JobGet(ctx, *other.EmailJobID)
	require.NoError(t, err)
	require.Equal(t, rivertype.JobStateAvailable, job.State, "another organization's invitation is untouched")

	// A job whose invitation does not exist (any more) sends nothing and writes no outbox row.
	eng, w, tx := emailWorker(t, nil)
	res, err := w.Work(ctx, t, tx, jobs.SendEmailArgs{Topic: tenancy.EmailTopicInvitation, RefID: gone.ID,
		To: "bob@example.com", Subject: "S", Body: "B"}, nil)
	require.NoError(t, err)
	require.Equal(t, river.EventKindJobCompleted, res.EventKind, "nothing to send is not an error")
	require.Empty(t, outbox(t, eng))
}

func TestSMTPFailedQuitStillCountsAsSent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := newFakeSMTP(t)
	srv.dropQuit = true
	eng, w, tx := emailWorker(t, newSMTPMailer(t, srv))
	args := jobs.SendEmailArgs{Topic: "test", RefID: db.NewID(), To: "quit@example.com", Subject: "S", Body: "B"}

	for range 2 {
		res, err := w.Work(ctx, t, tx, args, nil)
		require.NoError(t, err)
		require.Equal(t, river.EventKindJobCompleted, res.EventKind)
	}
	rows := outbox(t, eng)
	require.Len(t, rows, 1)
	require.NotNil(t, rows[0].SentAt)
	require.Len(t, srv.messages(), 1, "a message accepted before a failed QUIT must not be sent again")
}

func TestSMTPNonASCIISubject(t *testing.T) {
	t.Parallel()
	srv := newFakeSMTP(t)
	m := newSMTPMailer(t, srv)
	subject := "Invitation à l'équipe « Café » on Pilot"
	require.NoError(t, m.Send(context.Background(), "ascii@example.com", subject, "Bonjour\n"))
	msgs := srv.messages()
	require.Len(t, msgs, 1)
	parsed, err := netmail.ReadMessage(strings.NewReader(msgs[0].Data))
	require.NoError(t, err)
	raw := parsed.Header.Get("Subject")
	for _, r := range raw {
		require.Less(t, r, rune(128), "header must be 7-bit: %q", raw)
	}
	decoded, err := new(mime.WordDecoder).DecodeHeader(raw)
	require.NoError(t, err)
	require.Equal(t, subject, decoded)
}

func TestNewSMTPValidatesConfiguration(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ url, from string }{
		{"http://user:pass@127.0.0.1:25", "Pilot <no-reply@pilot.test>"},
		{"smtp://", "Pilot <no-reply@pilot.test>"},
		{"smtp://127.0.0.1:25", "not an address"},
		{"smtp://127.0.0.1:25", ""},
	} {
		_, err := mail.NewSMTP(tc.url, tc.from)
		require.Error(t, err, "url %q from %q", tc.url, tc.from)
	}
	_, err := mail.NewSMTP("smtps://mail.example.com", "no-reply@example.com")
	require.NoError(t, err)
}

// TestOrganizationInvitationEmailOnlyWhilePending: an organization invitation's e-mail goes out while the
// invitation waits, and not once it was accepted (or withdrawn with its organization) before the job ran.
func TestOrganizationInvitationEmailOnlyWhilePending(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eng, w, tx := emailWorker(t, nil)
	alice := testfactory.User(t, eng, &testfactory.UserOpts{Email: testfactory.Ptr("alice@example.com")})
	bob := testfactory.User(t, eng, &testfactory.UserOpts{Email: testfactory.Ptr("bob@example.com")})
	engine := eng.Tenancy
	org, err := engine.CreateOrganization(ctx, alice.User.ID, "Acme", "acme")
	require.NoError(t, err)
	invite := func(email, token string) jobs.SendEmailArgs {
		inv, err := engine.InviteToOrganization(ctx, tenancy.NewOrganizationInvitation{OrganizationID: org.ID,
			OrganizationName: org.Name,
			Email:            email, Role: "member", InvitedBy: alice.User.ID, InviterName: "Alice", Token: token,
			AcceptURL: "http://pilot.test/x"})
		require.NoError(t, err)
		return jobs.SendEmailArgs{Topic: tenancy.EmailTopicOrganizationInvitation, RefID: inv.ID, To: email, Subject: "S",
			Body: "B"}
	}
	accepted := invite("bob@example.com", "tok-bob")
	waiting := invite("carol@example.com", "tok-carol")
	_, err = engine.AcceptOrganizationInvitation(ctx, "tok-bob", bob.User)
	require.NoError(t, err)

	res, err := w.Work(ctx, t, tx, accepted, nil)
	require.NoError(t, err)
	require.Equal(t, river.EventKindJobCompleted, res.EventKind, "nothing to send is not an error")
	require.Empty(t, outbox(t, eng))

	res, err = w.Work(ctx, t, tx, waiting, nil)
	require.NoError(t, err)
	require.Equal(t, river.EventKindJobCompleted, res.EventKind)
	rows := outbox(t, eng)
	require.Len(t, rows, 1)
	require.Equal(t, "carol@example.com", rows[0].ToAddress)
}
