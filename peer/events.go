package peer

// Subscribe returns a channel of events (buffer buf, default 256) and a
// function that ends the subscription. The channel is closed when the
// subscription ends or the node closes. A subscriber whose buffer is full
// loses the event (DroppedEvents counts it): nothing blocks the node.
func (n *Node) Subscribe(buf int) (<-chan Event, func()) {
	if buf <= 0 {
		buf = defaultEventBuffer
	}
	return n.events.Subscribe(buf)
}

// DroppedEvents counts events lost to full subscriber buffers.
func (n *Node) DroppedEvents() int64 { return n.events.Dropped() }

func (n *Node) hasSubscribers() bool { return n.events.Len() > 0 }

func (n *Node) publish(e Event) {
	switch e.Type {
	case EventLine, EventPeerUp, EventPeerDown, EventThread:
		n.presenceChanged()
	}
	if n.events.Len() == 0 {
		return
	}
	if e.Time == "" {
		e.Time = n.stamp()
	}
	if e.PeerName == "" && !e.Peer.IsZero() {
		e.PeerName = n.names.get(e.Peer)
	}
	n.events.Publish(e)
}
