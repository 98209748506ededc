package transport

import (
	"errors"
	"fmt"
	"net"
)

// Sentinel errors, grouped by when they happen. Returned errors wrap them
// with the operation and address, so test them with errors.Is.
var (
	// Parsing.

	// ErrBadAddr is returned by ParseAddr (and so by Listen and Dial) when
	// an address is not one of the forms in docs/transport.md.
	ErrBadAddr = errors.New("transport: malformed address")

	// Policy.

	// ErrPublicTCP is returned when plaintext TCP would listen on, dial, or
	// (logged, for Accept) come from an address that is neither loopback nor
	// private (docs/protocol/bindings.md) and Options.AllowPublicTCP is false.
	ErrPublicTCP = errors.New("transport: plaintext tcp to or from a public address is refused; pass --allow-public-tcp to allow it")

	// Listen and Dial.

	// ErrUnsupported is returned for an address this Manager cannot listen
	// on or dial: a tc… token tailcat cannot decode, mem:// without Options.Mem,
	// listening on a wg address with another peer's key.
	ErrUnsupported = errors.New("transport: address not supported here")
	// ErrNoKey is returned by Dial for a wg address without "#ed25519:KEY",
	// or when the wg binding is used with no Options.Key.
	ErrNoKey = errors.New("transport: wg needs a key")
	// ErrInUse is returned by Listen when the address is already served: a
	// unix socket something answers on, a taken mem name, a second wg
	// listener on one Manager.
	ErrInUse = errors.New("transport: address already in use")
	// ErrRefused is returned by Dial when nothing listens on a mem address.
	ErrRefused = errors.New("transport: connection refused")

	// Lifecycle.

	// ErrClosed is returned by Listen and Dial after Manager.Close, and by
	// Listener.Accept after the listener closed. It wraps net.ErrClosed.
	ErrClosed = fmt.Errorf("transport: closed: %w", net.ErrClosed)
)

// opCause is err without the words of a *net.OpError ("listen tcp
// 127.0.0.1:7701: "), which the caller's message already says: the
// system call's error, which errors.Is still finds (syscall.EADDRINUSE).
func opCause(err error) error {
	var op *net.OpError
	if errors.As(err, &op) && op.Err != nil {
		return op.Err
	}
	return err
}

// acceptErr wraps an Accept failure of the listener at addr: ErrClosed once
// the listener is closed, the failure itself otherwise.
func acceptErr(addr string, err error) error {
	if errors.Is(err, net.ErrClosed) {
		return fmt.Errorf("transport: accept %s: %w", addr, ErrClosed)
	}
	return fmt.Errorf("transport: accept %s: %w", addr, err)
}

// closeListener closes the OS listener of the listener at addr; closing
// one already closed is not an error.
func closeListener(ln net.Listener, addr string) error {
	if err := ln.Close(); err != nil && !errors.Is(err, net.ErrClosed) {
		return fmt.Errorf("transport: close %s: %w", addr, err)
	}
	return nil
}
