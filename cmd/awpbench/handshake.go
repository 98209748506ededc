package main

import (
	"errors"
	"fmt"
	"net"
	"sort"
	"strings"
	"time"

	"github.com/awp-tray/awp-tray/peer/key"
	"github.com/awp-tray/awp-tray/peer/wire"
)

// handshakeOnce dials addr (tcp://HOST:PORT) and runs docs/protocol/handshake.md as a client:
// hello, auth, resume. It returns the time from before the dial until the
// node's resume has been received (ours having been sent).
func handshakeOnce(addr string, priv key.PrivateKey, ids *wire.IDGen) (time.Duration, error) {
	hostport, ok := strings.CutPrefix(addr, "tcp://")
	if !ok {
		return 0, fmt.Errorf("handshake: want a tcp:// address, got %q", addr)
	}
	start := time.Now()
	c, err := net.Dial("tcp", hostport)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	_ = c.SetDeadline(start.Add(10 * time.Second))
	h := &hsClient{r: wire.NewReader(c), w: wire.NewWriter(c), ids: ids}
	if err := h.authenticate(priv); err != nil {
		return 0, err
	}
	res := &wire.Resume{Seen: map[string]string{}}
	res.T, res.ID, res.TS = wire.TypeResume, ids.New(), hsNow()
	if _, err := h.send(res); err != nil {
		return 0, err
	}
	for {
		f, err := h.read()
		if err != nil {
			return 0, err
		}
		if _, ok := f.(*wire.Resume); ok {
			return time.Since(start), nil
		}
	}
}

// hsClient is the client side of one handshake's connection.
type hsClient struct {
	r   *wire.Reader
	w   *wire.Writer
	ids *wire.IDGen
}

// hsNow is the ts of a line sent now.
func hsNow() string { return wire.FormatTime(time.Now()) }

// send writes f and flushes it; it returns the line as sent.
func (h *hsClient) send(f wire.Frame) ([]byte, error) {
	b, err := wire.Encode(f)
	if err != nil {
		return nil, err
	}
	if err := h.w.WriteLine(b); err != nil {
		return nil, err
	}
	return b, h.w.Flush()
}

// read reads the node's next line; an err line is an error.
func (h *hsClient) read() (wire.Frame, error) {
	raw, err := h.r.ReadLine()
	if err != nil {
		return nil, err
	}
	f, err := wire.Decode(raw)
	if err != nil {
		return nil, err
	}
	if e, ok := f.(*wire.Err); ok {
		return nil, fmt.Errorf("handshake: node said %s: %s", e.Code, e.Msg)
	}
	return f, nil
}

// authenticate exchanges hello and auth with the node as priv, and checks
// the node's.
func (h *hsClient) authenticate(priv key.PrivateKey) error {
	myHello, err := h.send(wire.NewHello(h.ids.New(), hsNow(), priv.Public(), "awpbench-client", "", []string{"chat"}, nil))
	if err != nil {
		return err
	}
	f, err := h.read()
	if err != nil {
		return err
	}
	ph, ok := f.(*wire.Hello)
	if !ok {
		return fmt.Errorf("handshake: expected hello, got %s", f.Header().T)
	}
	pk, err := ph.CheckHello()
	if err != nil {
		return err
	}
	auth := &wire.Auth{Sig: priv.SignText(wire.AuthMessage(myHello, ph.Raw()))}
	auth.T, auth.ID, auth.TS = wire.TypeAuth, h.ids.New(), hsNow()
	if _, err := h.send(auth); err != nil {
		return err
	}
	if f, err = h.read(); err != nil {
		return err
	}
	pa, ok := f.(*wire.Auth)
	if !ok {
		return fmt.Errorf("handshake: expected auth, got %s", f.Header().T)
	}
	if !pk.VerifyText(wire.AuthMessage(ph.Raw(), myHello), pa.Sig) {
		return errors.New("handshake: node's auth does not verify")
	}
	return nil
}

// handshakes runs count handshakes (after a few unmeasured ones) one after
// another and returns their durations, sorted.
func handshakes(addr string, count int) ([]time.Duration, error) {
	priv, err := key.NewPrivate()
	if err != nil {
		return nil, err
	}
	var ids wire.IDGen
	for range 5 {
		if _, err := handshakeOnce(addr, priv, &ids); err != nil {
			return nil, err
		}
	}
	ds := make([]time.Duration, 0, count)
	for range count {
		d, err := handshakeOnce(addr, priv, &ids)
		if err != nil {
			return nil, err
		}
		ds = append(ds, d)
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return ds, nil
}

// quantile returns the q-quantile (nearest rank) of sorted durations.
func quantile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(q*float64(len(sorted))+0.5) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}
