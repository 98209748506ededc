package store

import (
	"fmt"
	"testing"
)

// testDB is an open store on a temp dir that can restart in one line
// (reopen). Its cleanup runs bbolt's consistency check and closes it.
type testDB struct {
	*DB
	t    testing.TB
	dir  string
	opts Options

	queued int // lines queue has appended: their ids are testID(1…queued)
}

// mustOpen opens a store on a fresh temp dir.
func mustOpen(t testing.TB) *testDB {
	t.Helper()
	return mustOpenDir(t, t.TempDir())
}

// mustOpenDir opens the store in dir; Check and Close run at cleanup.
func mustOpenDir(t testing.TB, dir string) *testDB {
	t.Helper()
	return mustOpenOpts(t, dir, Options{})
}

// mustOpenOpts is mustOpenDir with options, kept for reopen.
func mustOpenOpts(t testing.TB, dir string, o Options) *testDB {
	t.Helper()
	db, err := Open(dir, o)
	if err != nil {
		t.Fatalf("open %s: %v", dir, err)
	}
	d := &testDB{DB: db, t: t, dir: dir, opts: o}
	t.Cleanup(func() { d.mustClose() })
	return d
}

// mustClose checks consistency and closes; it is safe to call twice.
func (d *testDB) mustClose() {
	d.t.Helper()
	if d.DB == nil {
		return
	}
	if err := d.Check(); err != nil {
		d.t.Errorf("bbolt check: %v", err)
	}
	if err := d.Close(); err != nil {
		d.t.Errorf("close: %v", err)
	}
	d.DB = nil
}

// reopen is a restart: check, close and open the same dir again.
func (d *testDB) reopen() {
	d.t.Helper()
	d.mustClose()
	db, err := Open(d.dir, d.opts)
	if err != nil {
		d.t.Fatalf("reopen %s: %v", d.dir, err)
	}
	d.DB = db
}

// update runs fn in a write transaction and fails the test on error.
func (d *testDB) update(fn func(tx *Tx) error) {
	d.t.Helper()
	if err := d.Update(fn); err != nil {
		d.t.Fatalf("update: %v", err)
	}
}

// view runs fn in a read transaction and fails the test on error.
func (d *testDB) view(fn func(tx *Tx) error) {
	d.t.Helper()
	if err := d.View(fn); err != nil {
		d.t.Fatalf("view: %v", err)
	}
}

// testID returns a 26-character ULID-shaped id that increases with n.
func testID(n int) string { return fmt.Sprintf("01J9ZX%020d", n) }
