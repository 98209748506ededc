package main

import (
	"context"
	"crypto/ecdh"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"golang.zx2c4.com/wireguard/conn"
	"golang.zx2c4.com/wireguard/device"
	"golang.zx2c4.com/wireguard/tun/netstack"
)

// wgStockRawMBPerSec is raw TCP through stock wireguard-go and its
// tun/netstack, as a program that takes both off the shelf would have them
// (the standard bind, IPv4, MTU 1420): two devices in this process, UDP
// over 127.0.0.1: the raw figure issue 5 measures the wg blob against. The
// binding has its own netstack adapter and bind (peer/transport/wg), which
// move the same stream faster; wgRawMBPerSec measures that.
func wgStockRawMBPerSec(size int64) (streamRate, error) {
	a, err := newStockPeer(netip.MustParseAddr("10.77.0.1"))
	if err != nil {
		return streamRate{}, err
	}
	defer a.close()
	b, err := newStockPeer(netip.MustParseAddr("10.77.0.2"))
	if err != nil {
		return streamRate{}, err
	}
	defer b.close()
	if err := a.dev.IpcSet(fmt.Sprintf("public_key=%s\nallowed_ip=%s/32\n", b.pub, b.addr)); err != nil {
		return streamRate{}, err
	}
	port, err := a.port()
	if err != nil {
		return streamRate{}, err
	}
	if err := b.dev.IpcSet(fmt.Sprintf("public_key=%s\nallowed_ip=%s/32\nendpoint=127.0.0.1:%d\n", a.pub, a.addr, port)); err != nil {
		return streamRate{}, err
	}
	l, err := a.net.ListenTCPAddrPort(netip.AddrPortFrom(a.addr, 1))
	if err != nil {
		return streamRate{}, err
	}
	defer l.Close()
	return streamMBPerSec(l.Accept, func(ctx context.Context) (net.Conn, error) {
		return b.net.DialContextTCPAddrPort(ctx, netip.AddrPortFrom(a.addr, 1))
	}, size)
}

// stockPeer is one stock wireguard-go device with its netstack.
type stockPeer struct {
	addr netip.Addr
	pub  string // hex, as UAPI wants it
	dev  *device.Device
	net  *netstack.Net
}

func newStockPeer(addr netip.Addr) (*stockPeer, error) {
	k, err := ecdh.X25519().GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	tdev, tnet, err := netstack.CreateNetTUN([]netip.Addr{addr}, nil, 1420)
	if err != nil {
		return nil, err
	}
	dev := device.NewDevice(tdev, conn.NewDefaultBind(), device.NewLogger(device.LogLevelSilent, ""))
	p := &stockPeer{addr: addr, pub: hex.EncodeToString(k.PublicKey().Bytes()), dev: dev, net: tnet}
	if err := dev.IpcSet(fmt.Sprintf("private_key=%s\nlisten_port=0\n", hex.EncodeToString(k.Bytes()))); err != nil {
		p.close()
		return nil, err
	}
	if err := dev.Up(); err != nil {
		p.close()
		return nil, err
	}
	return p, nil
}

// port is the UDP port the device listens on.
func (p *stockPeer) port() (int, error) {
	s, err := p.dev.IpcGet()
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(s, "\n") {
		if v, ok := strings.CutPrefix(line, "listen_port="); ok {
			return strconv.Atoi(v)
		}
	}
	return 0, fmt.Errorf("no listen_port in the device's configuration")
}

func (p *stockPeer) close() {
	p.dev.Close()
	select {
	case <-p.dev.Wait():
	case <-time.After(5 * time.Second):
	}
}
