// Package burst reads events in bursts: a front end that refreshes per
// event would redo its work 10,000 times for a burst of 10,000 lines, so
// it takes every event already waiting and refreshes once.
package burst

import "context"

// Next waits for the next value on ch and hands it, and every value
// already waiting behind it, to take. It reports false, having taken
// nothing, when ch is closed or ctx ended; a ch closed in the middle of a
// burst ends the burst (true) and the next call reports false.
func Next[T any](ctx context.Context, ch <-chan T, take func(T)) bool {
	select {
	case v, ok := <-ch:
		if !ok {
			return false
		}
		take(v)
	case <-ctx.Done():
		return false
	}
	for {
		select {
		case v, ok := <-ch:
			if !ok {
				return true
			}
			take(v)
		default:
			return true
		}
	}
}
