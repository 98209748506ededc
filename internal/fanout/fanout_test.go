package fanout

import "testing"

// A value reaches every subscriber with room; a full one loses it and
// Dropped counts it; cancel closes the channel once, however often it is
// called; Close closes the rest and every later subscription.
func TestBroker(t *testing.T) {
	var b Broker[int]
	a, cancelA := b.Subscribe(1)
	c, cancelC := b.Subscribe(0) // a buffer of at least 1
	defer cancelC()
	if b.Len() != 2 {
		t.Fatalf("Len = %d, want 2", b.Len())
	}
	b.Publish(1)
	b.Publish(2) // both buffers are full
	if got := <-a; got != 1 {
		t.Errorf("a got %d, want 1", got)
	}
	if got := <-c; got != 1 {
		t.Errorf("c got %d, want 1", got)
	}
	if b.Dropped() != 2 {
		t.Errorf("Dropped = %d, want 2", b.Dropped())
	}
	cancelA()
	cancelA()
	if _, ok := <-a; ok {
		t.Error("a still open after cancel")
	}
	if b.Len() != 1 {
		t.Errorf("Len after cancel = %d, want 1", b.Len())
	}
	b.Close()
	if _, ok := <-c; ok {
		t.Error("c still open after Close")
	}
	late, cancelLate := b.Subscribe(4)
	cancelLate()
	if _, ok := <-late; ok {
		t.Error("a subscription after Close is open")
	}
	if b.Len() != 0 {
		t.Errorf("Len after Close = %d", b.Len())
	}
}
