// Package mail sends e-mail over SMTP.
package mail

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/mail"
	"net/smtp"
	"net/textproto"
	"net/url"
	"strings"
	"time"
)

// ErrRejected marks a message the server refused for good (a 5xx reply to MAIL FROM, RCPT TO or the
// message data): sending it again cannot succeed.
var ErrRejected = errors.New("message rejected by the SMTP server")

// Sender delivers one message.
type Sender interface {
	Send(ctx context.Context, to, subject, body string) error
}

// SMTP sends through a server named by a URL: smtp://user:pass@host:port (STARTTLS when offered) or
// smtps://… (implicit TLS).
type SMTP struct {
	addr     string
	host     string
	implicit bool
	auth     smtp.Auth
	from     *mail.Address
}

// NewSMTP parses rawURL and from (e.g. "Pilot <no-reply@example.com>").
func NewSMTP(rawURL, from string) (*SMTP, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("parse SMTP_URL: %w", err)
	}
	if u.Scheme != "smtp" && u.Scheme != "smtps" {
		return nil, fmt.Errorf("SMTP_URL must start with smtp:// or smtps://, not %q", u.Scheme+"://")
	}
	if u.Hostname() == "" {
		return nil, errors.New("SMTP_URL has no host")
	}
	fromAddr, err := mail.ParseAddress(from)
	if err != nil {
		return nil, fmt.Errorf("parse from address %q: %w", from, err)
	}
	host := u.Hostname()
	port := u.Port()
	if port == "" {
		port = "587"
		if u.Scheme == "smtps" {
			port = "465"
		}
	}
	s := &SMTP{addr: net.JoinHostPort(host, port), host: host, implicit: u.Scheme == "smtps", from: fromAddr}
	if u.User != nil {
		pass, _ := u.User.Password()
		s.auth = smtp.PlainAuth("", u.User.Username(), pass, host)
	}
	return s, nil
}

// Send implements Sender.
func (s *SMTP) Send(ctx context.Context, to, subject, body string) error {
	from := s.from
	d := net.Dialer{Timeout: 10 * time.Second}
	var (
		conn net.Conn
		err  error
	)
	if s.implicit {
		conn, err = (&tls.Dialer{NetDialer: &d, Config: &tls.Config{ServerName: s.host}}).DialContext(ctx, "tcp", s.addr)
	} else {
		conn, err = d.DialContext(ctx, "tcp", s.addr)
	}
	if err != nil {
		return fmt.Errorf("dial smtp: %w", err)
	}
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	c, err := smtp.NewClient(conn, s.host)
	if err != nil {
		_ = conn.Close() // the failed hello is the error to report
		return fmt.Errorf("smtp hello: %w", err)
	}
	// After a successful QUIT the connection is already closed; on an early return the error being
	// returned is the one to report. Either way Close only releases the connection.
	defer func() { _ = c.Close() }()
	if ok, _ := c.Extension("STARTTLS"); ok && !s.implicit {
		if err := c.StartTLS(&tls.Config{ServerName: s.host}); err != nil {
			return fmt.Errorf("smtp starttls: %w", err)
		}
	}
	if s.auth != nil {
		if err := c.Auth(s.auth); err != nil {
			return fmt.Errorf("smtp auth: %w", err)
		}
	}
	if err := c.Mail(from.Address); err != nil {
		return fmt.Errorf("smtp mail from: %w", rejected(err))
	}
	if err := c.Rcpt(to); err != nil {
		return fmt.Errorf("smtp rcpt to: %w", rejected(err))
	}
	w, err := c.Data()
	if err != nil {
		return fmt.Errorf("smtp data: %w", rejected(err))
	}
	// RFC 5322 requires Date; Message-ID keeps receiving filters from scoring the message as spam.
	msg := "From: " + from.String() + "\r\nTo: " + to + "\r\nSubject: " + mimeHeader(subject) +
		"\r\nDate: " + time.Now().Format(time.RFC1123Z) + "\r\nMessage-ID: " + messageID(from.Address) +
		"\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n" +
		strings.ReplaceAll(body, "\n", "\r\n")
	if _, err := w.Write([]byte(msg)); err != nil {
		return fmt.Errorf("smtp write: %w", err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("smtp end data: %w", rejected(err))
	}
	// The server accepted the message when DATA ended with 250: a failed QUIT must not make the caller
	// send it again.
	_ = c.Quit()
	return nil
}

// rejected marks a permanent (5xx) SMTP reply with ErrRejected.
func rejected(err error) error {
	var tpErr *textproto.Error
	if errors.As(err, &tpErr) && tpErr.Code >= 500 {
		return fmt.Errorf("%w: %w", ErrRejected, err)
	}
	return err
}

// messageID makes a unique Message-ID in the sender's domain.
func messageID(fromAddress string) string {
	domain := "pilot.invalid"
	if i := strings.LastIndexByte(fromAddress, '@'); i >= 0 && i < len(fromAddress)-1 {
		domain = fromAddress[i+1:]
	}
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return "<" + hex.EncodeToString(b) + "@" + domain + ">"
}

func mimeHeader(s string) string {
	s = strings.NewReplacer("\r", " ", "\n", " ").Replace(s)
	for _, r := range s {
		if r > 127 {
			return fmt.Sprintf("=?utf-8?q?%s?=", qEncode(s))
		}
	}
	return s
}

func qEncode(s string) string {
	var b strings.Builder
	for _, c := range []byte(s) {
		switch {
		case c == ' ':
			b.WriteByte('_')
		case c >= '0' && c <= '9', c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "=%02X", c)
		}
	}
	return b.String()
}
