package wg

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"time"
)

// devState is the part of the UAPI "get" output the package reads.
type devState struct {
	port       int
	endpoints  map[[32]byte]netip.AddrPort // WireGuard public key → endpoint
	handshakes map[[32]byte]time.Time      // WireGuard public key → last completed handshake (absent: none)
}

// state reads the device's UAPI state.
func (d *Device) state() (devState, error) {
	var st devState
	if d.isClosed() {
		return st, ErrClosed
	}
	s, err := d.dev.IpcGet()
	if err != nil {
		return st, fmt.Errorf("wg: read state: %w", err)
	}
	return parseState(s)
}

// parseState parses UAPI "get" output.
func parseState(s string) (devState, error) {
	st := devState{endpoints: make(map[[32]byte]netip.AddrPort), handshakes: make(map[[32]byte]time.Time)}
	var cur *[32]byte
	var sec int64
	sc := bufio.NewScanner(strings.NewReader(s))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), "=")
		if !ok {
			continue
		}
		switch k {
		case "listen_port":
			p, err := strconv.Atoi(v)
			if err != nil {
				return st, fmt.Errorf("wg: parse state: listen_port %q: %w", v, err)
			}
			st.port = p
		case "public_key":
			b, err := hex.DecodeString(v)
			if err != nil || len(b) != 32 {
				return st, fmt.Errorf("wg: parse state: public_key %q", v)
			}
			cur = new([32]byte)
			copy(cur[:], b)
			st.endpoints[*cur] = netip.AddrPort{}
		case "endpoint":
			if cur == nil {
				continue
			}
			ap, err := netip.ParseAddrPort(v)
			if err != nil {
				return st, fmt.Errorf("wg: parse state: endpoint %q: %w", v, err)
			}
			st.endpoints[*cur] = ap
		case "last_handshake_time_sec":
			sec, _ = strconv.ParseInt(v, 10, 64)
		case "last_handshake_time_nsec":
			// wireguard-go writes sec, then nsec, per peer.
			nsec, _ := strconv.ParseInt(v, 10, 64)
			if cur != nil && (sec != 0 || nsec != 0) {
				st.handshakes[*cur] = time.Unix(sec, nsec)
			}
			sec = 0
		}
	}
	return st, nil
}
