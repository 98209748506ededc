package keystore

import (
	"context"
	"fmt"
	"time"
)

// DefaultTimeout bounds each keyring call when no timeout is given.
const DefaultTimeout = 5 * time.Second

// guarded runs fn on its own goroutine and returns its result, or an error
// once timeout passes or ctx is done, whichever comes first, even if fn
// ignores the context it is given. A fn that is abandoned that way keeps
// running until it returns on its own; its result is dropped.
//
// op names the operation for the error message ("read the identity").
func guarded[T any](ctx context.Context, timeout time.Duration, op string, fn func(context.Context) (T, error)) (T, error) {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1) // buffered: an abandoned fn never blocks
	go func() {
		v, err := fn(tctx)
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		return r.v, r.err
	case <-tctx.Done():
		var zero T
		if err := ctx.Err(); err != nil {
			return zero, fmt.Errorf("keystore: %s: gave up waiting for the OS keyring: %w", op, err)
		}
		return zero, timeoutError(op, timeout)
	}
}

// timeoutError is the error of a keyring call that took longer than timeout.
func timeoutError(op string, timeout time.Duration) error {
	return hint(ErrKeyringTimeout, nil, fmt.Sprintf(
		"keystore: %s: the OS keyring did not answer within %s. "+
			"Is no Secret Service running, or a locked keyring waiting at an unlock prompt? "+
			"Start or unlock gnome-keyring, or %s", op, timeout, fileHint))
}
