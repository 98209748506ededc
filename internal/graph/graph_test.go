package graph

import (
	"slices"
	"testing"
)

// edges makes the adjacency of an undirected graph on n nodes.
func edges(n int, es ...[2]int) []map[int]bool {
	adj := make([]map[int]bool, n)
	for i := range adj {
		adj[i] = map[int]bool{}
	}
	for _, e := range es {
		adj[e[0]][e[1]], adj[e[1]][e[0]] = true, true
	}
	return adj
}

func TestHops(t *testing.T) {
	// 0-1-2-3 and a shortcut 0-3; 4 is alone.
	adj := edges(5, [2]int{0, 1}, [2]int{1, 2}, [2]int{2, 3}, [2]int{0, 3})
	if got, want := Hops(adj, 0), []int{0, 1, 2, 1, -1}; !slices.Equal(got, want) {
		t.Fatalf("Hops from 0 = %v, want %v", got, want)
	}
	if got, want := Hops(adj, 2), []int{2, 1, 0, 1, -1}; !slices.Equal(got, want) {
		t.Fatalf("Hops from 2 = %v, want %v", got, want)
	}
	if got, want := Hops(adj, 4), []int{-1, -1, -1, -1, 0}; !slices.Equal(got, want) {
		t.Fatalf("Hops from 4 = %v, want %v", got, want)
	}
}
