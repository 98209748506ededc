package notifytest

import (
	"testing"
	"time"
)

func TestClockRunsDueTimersInOrder(t *testing.T) {
	c := NewClock(time.Unix(0, 0))
	var got []int
	c.AfterFunc(2*time.Second, func() { got = append(got, 2) })
	c.AfterFunc(time.Second, func() { got = append(got, 1) })
	stop := c.AfterFunc(time.Second, func() { got = append(got, 9) })
	if !stop() {
		t.Error("stop of a pending timer reported false")
	}
	c.Advance(1500 * time.Millisecond)
	if len(got) != 1 || got[0] != 1 || c.Pending() != 1 {
		t.Fatalf("after 1.5s: ran %v, %d pending", got, c.Pending())
	}
	c.Advance(time.Second)
	if len(got) != 2 || got[1] != 2 || !c.Now().Equal(time.Unix(2, 500e6)) {
		t.Errorf("after 2.5s: ran %v at %v", got, c.Now())
	}
}
