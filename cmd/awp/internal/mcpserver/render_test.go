package mcpserver

import (
	"strings"
	"testing"
)

// The text answers name a thread the same way in awp_inbox and awp_show:
// the subject quoted with its hidden characters escaped, "no subject"
// when there is none, "-" for a state not declared.
func TestRenderThreadHead(t *testing.T) {
	head := ThreadHead{Th: "thr_abc", Peer: "ed25519:PAAA", PeerName: "bob", Subject: "fix \u202ethe build", Theirs: "working"}
	inbox := renderInbox(InboxOut{Threads: []ThreadLines{{ThreadHead: head}}}, "")
	want := `Thread thr_abc with bob ed25519:PAAA: "fix \\u202ethe build" (mine -, theirs working)` + "\n"
	if inbox != want {
		t.Errorf("awp_inbox's head:\n got %q\nwant %q", inbox, want)
	}
	head.Subject, head.PeerName = "", ""
	show := renderShow(ShowOut{ThreadHead: head, Total: 2, Unread: 1})
	if want := "Thread thr_abc with (no name) ed25519:PAAA: no subject (mine -, theirs working), 2 lines, 1 unread\n"; show != want {
		t.Errorf("awp_show's head:\n got %q\nwant %q", show, want)
	}
	if strings.Contains(show, `""`) {
		t.Errorf("an empty subject shows as quotes: %q", show)
	}
}

// awp_peers says how many threads a peer publishes only when it publishes
// some: a peer at presence detail "peers" lists none, which is not "0
// threads" (it read "0 threads, 9 unread").
func TestRenderPeersThreads(t *testing.T) {
	o := PeersOut{Peers: []PeerOut{
		{Name: "alice", Key: "ed25519:A", Up: true, Presence: &PresenceSummary{Host: "vm", Unread: 9}},
		{Name: "bob", Key: "ed25519:B", Presence: &PresenceSummary{Threads: 3, Unread: 1}},
	}}
	want := "- alice  ed25519:A  (up, vm, 9 unread)\n- bob  ed25519:B  (down, 3 threads published, 1 unread)\n"
	if got := renderPeers(o); got != want {
		t.Errorf("renderPeers =\n%s\nwant\n%s", got, want)
	}
}
