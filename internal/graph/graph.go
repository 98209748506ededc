// Package graph holds what the fleet benchmark and the presence mesh test
// both ask of the random graphs they connect nodes along. It owns no state
// and does no I/O.
package graph

// Hops returns the number of edges on a shortest path from node from to
// every node of the undirected graph adj (adj[a][b] means an edge a-b), by
// breadth-first search; -1 marks a node from cannot reach.
func Hops(adj []map[int]bool, from int) []int {
	dist := make([]int, len(adj))
	for i := range dist {
		dist[i] = -1
	}
	dist[from] = 0
	queue := []int{from}
	for len(queue) > 0 {
		x := queue[0]
		queue = queue[1:]
		for y := range adj[x] {
			if dist[y] < 0 {
				dist[y] = dist[x] + 1
				queue = append(queue, y)
			}
		}
	}
	return dist
}
