package localapi

import (
	"context"
	"io"
	"path/filepath"

	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/key"
)

// Backend is the part of *peer.Node the local API serves. It is an
// interface so this package builds and is tested without a node; the
// methods and their meaning are those of docs/NODE-API.md.
type Backend interface {
	// Key is the node's public key.
	Key() key.PublicKey
	// Name is the node's display name.
	Name() string
	// ListenAddrs are the bound listen addresses, ports resolved.
	ListenAddrs() []string
	// Connect dials addr, keeps the connection up and returns the peer's
	// key once the handshake is done.
	Connect(ctx context.Context, addr string) (key.PublicKey, error)
	// Send queues one msg durably.
	Send(ctx context.Context, r peer.SendRequest) (peer.SendResult, error)
	// SetState queues a state line.
	SetState(ctx context.Context, th, state, note string) (peer.SendResult, error)
	// Threads lists threads, newest activity first.
	Threads() ([]peer.ThreadInfo, error)
	// Lines returns a thread's lines in order; from is the sharer's key
	// for a mirrored thread, "" for one of mine.
	Lines(th, from string) ([]peer.LineInfo, error)
	// MarkRead marks a thread's lines read.
	MarkRead(th, from string) error
	// Peers lists known peers.
	Peers() ([]peer.PeerInfo, error)
	// Trust adds k to the trust list, or removes it.
	Trust(k string, trusted bool) error
	// Blobs lists blobs received and sent.
	Blobs() ([]peer.BlobInfo, error)
	// OpenBlob opens a complete, intact blob.
	OpenBlob(from, ref string) (io.ReadCloser, peer.BlobInfo, error)
	// Subscribe registers an event subscriber with a buffer of buf events.
	Subscribe(buf int) (events <-chan peer.Event, cancel func())
	// Pending lists requests waiting for a decision.
	Pending() []peer.ApprovalRequest
	// Decide answers a pending request.
	Decide(id string, d peer.Decision) error
}

// Identity is what GET /v0/id returns: who the running peer is and where
// it listens.
type Identity struct {
	Key    string   `json:"key"`
	Name   string   `json:"name"`
	Listen []string `json:"listen"`
}

// The request bodies of the POST endpoints.
type (
	connectRequest struct {
		Addr string `json:"addr"`
	}
	connectResponse struct {
		Key string `json:"key"`
	}
	stateRequest struct {
		Th    string `json:"th"`
		State string `json:"state"`
		Note  string `json:"note,omitempty"`
	}
	readRequest struct {
		Th   string `json:"th"`
		From string `json:"from,omitempty"`
	}
	trustRequest struct {
		Key     string `json:"key"`
		Trusted bool   `json:"trusted"`
	}
	decideRequest struct {
		ID       string        `json:"id"`
		Decision peer.Decision `json:"decision"`
	}
	errorBody struct {
		Error string `json:"error"`
		Code  string `json:"code"`
	}
)

// blobHeader carries the BlobInfo of GET /v0/blob as JSON.
const blobHeader = "Awp-Blob"

// SocketName is the control socket's file name inside the data directory.
const SocketName = "awp.sock"

// SocketPath returns the control socket's path for a data directory.
func SocketPath(dataDir string) string { return filepath.Join(dataDir, SocketName) }
