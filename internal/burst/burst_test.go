package burst

import (
	"context"
	"testing"
)

func TestNext(t *testing.T) {
	ctx := context.Background()
	ch := make(chan int, 8)
	for i := 1; i <= 3; i++ {
		ch <- i
	}
	var got []int
	if !Next(ctx, ch, func(v int) { got = append(got, v) }) || len(got) != 3 {
		t.Fatalf("first burst: %v", got)
	}
	ch <- 4
	close(ch)
	got = nil
	if !Next(ctx, ch, func(v int) { got = append(got, v) }) || len(got) != 1 || got[0] != 4 {
		t.Fatalf("burst before the close: %v", got)
	}
	if Next(ctx, ch, func(int) { t.Error("took from a closed channel") }) {
		t.Error("a closed channel gave a burst")
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if Next(cctx, make(chan int), func(int) {}) {
		t.Error("an ended context gave a burst")
	}
}
