package wg

import (
	"net/netip"
	"sync"
	"time"

	"golang.org/x/crypto/blake2s"
	"golang.org/x/crypto/chacha20poly1305"
	"golang.org/x/crypto/curve25519"
	"golang.zx2c4.com/wireguard/conn"
	"golang.zx2c4.com/wireguard/device"

	"github.com/awp-tray/awp-tray/peer/key"
)

// This file watches the handshake initiations the device receives, to
// tell the node two things wireguard-go keeps to itself:
//
//   - a configured peer started a handshake: if it restarted, the tunnel
//     conns this device still has with it are dead (the other side's
//     netstack forgot them), and nothing would say so until a timeout;
//     the node checks them at once (Config.OnHandshake).
//   - a key that is not configured tried to connect: wireguard-go drops
//     the initiation without a word, and its person never learns that the
//     other side has not added its invite (Config.OnRefused).
//
// Reading the initiator's static key takes one X25519 and an AEAD open of
// the first half of the Noise IK handshake (the WireGuard paper, §5.4.2),
// as wireguard-go does first for every initiation. Initiations are cheap
// to send, so the work is bounded: the receive path only copies an
// initiation into a small queue (dropping it when full) and one goroutine
// reads at most sniffRate a second.

// Sizes and offsets of a handshake initiation (type 1).
const (
	initiationSize = device.MessageInitiationSize // 148
	offEphemeral   = 8
	offStatic      = 40
	offTimestamp   = 88
)

// Bounds on the watching.
const (
	// sniffQueue is how many initiations wait to be read; more are
	// dropped (what is lost is a log line or a check a later one makes).
	sniffQueue = 16
	// sniffRate is how many initiations are read per second at most:
	// legitimate peers start one every 2 minutes each, so a higher rate
	// is someone else's flood, whose DH operations this bounds.
	sniffRate = 20
	// handshakeEvery is how often OnHandshake may fire for one key.
	handshakeEvery = time.Second
	// refusedEvery is how often OnRefused may fire for one WireGuard key,
	// and refusedKeys how many keys it remembers for that (a flood of
	// throwaway keys then fills it and it starts over).
	refusedEvery = time.Minute
	refusedKeys  = 256
)

// Refused describes a dropped handshake initiation from a key this device
// has not configured.
type Refused struct {
	WGKey [32]byte        // the initiator's WireGuard public key
	Keys  []key.PublicKey // the AWP keys it can be (EdwardsKeys)
	From  netip.AddrPort  // the UDP source
}

type sniffed struct {
	msg  [initiationSize]byte
	from netip.AddrPort
}

// sniffer reads the initiations handed to it by the bind.
type sniffer struct {
	d     *Device
	priv  [32]byte // the device's WireGuard key pair
	pub   [32]byte
	mac1  device.CookieChecker
	ch    chan sniffed
	stop  chan struct{}
	done  chan struct{}
	since map[key.PublicKey]time.Time // last OnHandshake per key
	told  map[[32]byte]time.Time      // last OnRefused per WireGuard key

	mu     sync.Mutex // guards closed
	closed bool
}

func newSniffer(d *Device, priv key.PrivateKey) *sniffer {
	s := &sniffer{d: d, priv: PrivateKey(priv), ch: make(chan sniffed, sniffQueue), stop: make(chan struct{}),
		done: make(chan struct{}), since: map[key.PublicKey]time.Time{}, told: map[[32]byte]time.Time{}}
	s.pub, _ = PublicKey(priv.Public())
	s.mac1.Init(device.NoisePublicKey(s.pub))
	go s.loop()
	return s
}

// offer hands the sniffer a received datagram; it keeps handshake
// initiations and never blocks (the receive path calls it).
func (s *sniffer) offer(p []byte, ep conn.Endpoint) {
	if len(p) != initiationSize || p[0] != device.MessageInitiationType {
		return
	}
	var m sniffed
	copy(m.msg[:], p)
	if ep != nil {
		m.from, _ = netip.ParseAddrPort(ep.DstToString())
	}
	select {
	case s.ch <- m:
	default:
	}
}

func (s *sniffer) close() {
	if s == nil {
		return
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	s.mu.Unlock()
	close(s.stop)
	<-s.done
}

func (s *sniffer) loop() {
	defer close(s.done)
	tick := time.NewTicker(time.Second / sniffRate)
	defer tick.Stop()
	for {
		select {
		case <-s.stop:
			return
		case m := <-s.ch:
			s.handle(m)
		}
		select { // at most sniffRate a second
		case <-s.stop:
			return
		case <-tick.C:
		}
	}
}

func (s *sniffer) handle(m sniffed) {
	if !s.mac1.CheckMAC1(m.msg[:]) {
		return // not for this device, or garbage
	}
	wgPub, ok := initiator(s.priv, s.pub, m.msg[:])
	if !ok {
		return
	}
	now := time.Now()
	if k, ok := s.d.peerByWG(wgPub); ok {
		if now.Sub(s.since[k]) < handshakeEvery || s.d.onHandshake == nil {
			return
		}
		s.since[k] = now
		if len(s.since) > refusedKeys {
			clear(s.since)
		}
		s.d.onHandshake(k)
		return
	}
	if now.Sub(s.told[wgPub]) < refusedEvery || s.d.onRefused == nil {
		return
	}
	if len(s.told) >= refusedKeys {
		clear(s.told)
	}
	s.told[wgPub] = now
	s.d.onRefused(Refused{WGKey: wgPub, Keys: EdwardsKeys(wgPub), From: m.from})
}

// initiator returns the static key of the peer that sent initiation msg to
// the device with WireGuard key pair (priv, pub): Noise IK's first message,
// up to the decryption of the initiator's static key.
func initiator(priv, pub [32]byte, msg []byte) ([32]byte, bool) {
	var out [32]byte
	var hash, chainKey, k [blake2s.Size]byte
	eph := msg[offEphemeral:offStatic]
	mixHash(&hash, &device.InitialHash, pub[:])
	mixHash(&hash, &hash, eph)
	device.KDF1(&chainKey, device.InitialChainKey[:], eph)
	ss, err := curve25519.X25519(priv[:], eph)
	if err != nil {
		return out, false
	}
	device.KDF2(&chainKey, &k, chainKey[:], ss)
	aead, err := chacha20poly1305.New(k[:])
	if err != nil {
		return out, false
	}
	if _, err := aead.Open(out[:0], device.ZeroNonce[:], msg[offStatic:offTimestamp], hash[:]); err != nil {
		return out, false
	}
	return out, true
}

func mixHash(dst, h *[blake2s.Size]byte, data []byte) {
	b, _ := blake2s.New256(nil)
	b.Write(h[:])
	b.Write(data)
	b.Sum(dst[:0])
}
