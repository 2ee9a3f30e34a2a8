package db

import "time"

// NilLast orders times, nil last (undated todos, unscheduled scopes).
func NilLast(a, b *time.Time) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return 1
	case b == nil:
		return -1
	}
	return a.Compare(*b)
}
