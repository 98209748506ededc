package main

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/awp-tray/awp-tray/peer"
	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/localapi"
)

// runScale is the scale mode: a node on an existing data directory, with
// its local API on DIR/awp.sock as `awp run` serves it, until told to stop.
// Its blob buffers are made on first use, as `awp run` and the tray app
// make them: this figure measures what months of history cost.
func (c *child) runScale(k key.PrivateKey) error {
	nd, err := peer.New(peer.Config{Key: k, DataDir: c.data, Name: "awpbench-scale", NoSync: c.nosync,
		Listen: []string{"tcp://127.0.0.1:0"}})
	if err != nil {
		return err
	}
	if err := nd.Start(); err != nil {
		nd.Close()
		return err
	}
	l, err := localapi.Listen(localapi.SocketPath(c.data))
	if err != nil {
		nd.Close()
		return err
	}
	srv := &localapi.Server{Backend: nd}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(l) }()
	c.emit(childMsg{Event: "ready", Key: nd.Key().String()})
	for {
		cmd := c.command()
		if cmd == "stop" {
			break
		}
		if cmd == "cpu" { // the figure's CPU time: the event carries it
			c.emit(childMsg{Event: "cpu"})
		}
	}
	serr := srv.Close()
	if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) && serr == nil {
		serr = err
	}
	if err := nd.Close(); err != nil {
		return err
	}
	if serr != nil {
		return fmt.Errorf("local API: %w", serr)
	}
	c.emit(childMsg{Event: "done", RSSMB: peakRSSMB()})
	return nil
}
