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
	r := wire.NewReader(c)
	w := wire.NewWriter(c)
	send := func(f wire.Frame) ([]byte, error) {
		b, err := wire.Encode(f)
		if err != nil {
			return nil, err
		}
		if err := w.WriteLine(b); err != nil {
			return nil, err
		}
		return b, w.Flush()
	}
	read := func() (wire.Frame, error) {
		raw, err := r.ReadLine()
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
	now := func() string { return wire.FormatTime(time.Now()) }

	myHello, err := send(wire.NewHello(ids.New(), now(), priv.Public(), "awpbench-client", "", []string{"chat"}, nil))
	if err != nil {
		return 0, err
	}
	f, err := read()
	if err != nil {
		return 0, err
	}
	ph, ok := f.(*wire.Hello)
	if !ok {
		return 0, fmt.Errorf("handshake: expected hello, got %s", f.Header().T)
	}
	pk, err := ph.CheckHello()
	if err != nil {
		return 0, err
	}
	auth := &wire.Auth{Sig: priv.SignText(wire.AuthMessage(myHello, ph.Raw()))}
	auth.T, auth.ID, auth.TS = wire.TypeAuth, ids.New(), now()
	if _, err := send(auth); err != nil {
		return 0, err
	}
	if f, err = read(); err != nil {
		return 0, err
	}
	pa, ok := f.(*wire.Auth)
	if !ok {
		return 0, fmt.Errorf("handshake: expected auth, got %s", f.Header().T)
	}
	if !pk.VerifyText(wire.AuthMessage(ph.Raw(), myHello), pa.Sig) {
		return 0, errors.New("handshake: node's auth does not verify")
	}
	res := &wire.Resume{Seen: map[string]string{}}
	res.T, res.ID, res.TS = wire.TypeResume, ids.New(), now()
	if _, err := send(res); err != nil {
		return 0, err
	}
	for {
		if f, err = read(); err != nil {
			return 0, err
		}
		if _, ok := f.(*wire.Resume); ok {
			return time.Since(start), nil
		}
	}
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
