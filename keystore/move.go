package keystore

import (
	"context"
	"errors"
	"fmt"
)

// MoveTo moves the identity from one Store to another, such as from the
// keyring to the key file of the same data directory, without ever losing
// it: it writes the identity to the new place, reads it back and compares,
// and only then deletes it from the old place.
//
// If the new place already holds the same identity (an earlier move was
// interrupted), MoveTo just finishes the move. If it holds a different one,
// MoveTo returns ErrExists and changes nothing. If the deletion fails, the
// identity is in both places and the error says so. With nothing to move it
// returns ErrNotFound. Like LoadOrCreate, it blocks on keyring calls.
func MoveTo(ctx context.Context, from, to *Store) error {
	if from == nil || to == nil {
		return errors.New("keystore: move: nil store")
	}
	if from.Location() == to.Location() {
		return fmt.Errorf("keystore: move: the identity is already in %s", to.Location())
	}
	unlock, err := lockBoth(ctx, from, to)
	if err != nil {
		return err
	}
	defer unlock()

	k, err := from.load(ctx)
	if err != nil {
		return wrap("move from "+from.Location(), err)
	}
	have, err := to.load(ctx)
	switch {
	case err == nil:
		if !sameKey(have, k) {
			return hint(ErrExists, nil, fmt.Sprintf(
				"keystore: move: %s already holds a different identity (%s, not %s); changed nothing",
				to.Location(), have.Public(), k.Public()))
		}
	case errors.Is(err, ErrNotFound):
		if err := to.storeNew(ctx, k); err != nil {
			return wrap(fmt.Sprintf("move to %s (the identity is still in %s)", to.Location(), from.Location()), err)
		}
	default:
		return wrap("move to "+to.Location(), err)
	}
	if err := to.verify(ctx, k); err != nil {
		return wrap(fmt.Sprintf("move (the identity is still in %s)", from.Location()), err)
	}
	if err := from.remove(ctx); err != nil {
		return wrap(fmt.Sprintf("move: the identity is now in %s, but removing it from %s failed "+
			"(it is in both places; remove the old copy by hand)", to.Location(), from.Location()), err)
	}
	return nil
}

// lockBoth takes the identity locks of both stores' data directories, in
// path order so two moves in opposite directions cannot deadlock.
func lockBoth(ctx context.Context, a, b *Store) (unlock func(), err error) {
	if a.dir > b.dir {
		a, b = b, a
	}
	ua, err := a.lock(ctx)
	if err != nil {
		return nil, err
	}
	if a.dir == b.dir {
		return ua, nil
	}
	ub, err := b.lock(ctx)
	if err != nil {
		ua()
		return nil, err
	}
	return func() { ub(); ua() }, nil
}
