package db

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
)

// Listener says what to do with a LISTEN connection's life: Connected runs each time the channel is
// listened to (first time and after each reconnect; whatever was committed meanwhile was not heard),
// Notified for each notification, Lost each time the connection breaks.
type Listener struct {
	Channel                    string
	ReconnectMin, ReconnectMax time.Duration
	Logger                     *slog.Logger
	Connected                  func(conn *pgx.Conn)
	Notified                   func(payload string)
	Lost                       func(err error)
}

// Listen holds a LISTEN connection of its own on l.Channel until ctx ends, reconnecting with backoff
// between l.ReconnectMin and l.ReconnectMax.
func (s *Store) Listen(ctx context.Context, l Listener) {
	backoff := l.ReconnectMin
	for ctx.Err() == nil {
		err := s.listenOnce(ctx, l, func() { backoff = l.ReconnectMin })
		if l.Lost != nil {
			l.Lost(err)
		}
		if ctx.Err() != nil {
			return
		}
		l.Logger.Warn("listener lost; reconnecting", "channel", l.Channel, "error", err, "in", backoff)
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(backoff*2, l.ReconnectMax)
	}
}

func (s *Store) listenOnce(ctx context.Context, l Listener, connected func()) error {
	conn, err := pgx.ConnectConfig(ctx, s.core.Pool.Config().ConnConfig.Copy())
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer func() {
		closeCtx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = conn.Close(closeCtx)
	}()
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{l.Channel}.Sanitize()); err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	connected()
	if l.Connected != nil {
		l.Connected(conn)
	}
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return fmt.Errorf("wait for notification: %w", err)
		}
		l.Notified(n.Payload)
	}
}
