package transport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/tailscale/tailcat"
	"tailscale.com/tailcfg"
)

// Which DERP region a tailcat listener serves from: its saved token's, a
// relay named by the person, the one saved from last time, or the nearest
// in a DERP map.

// relayRegion makes the one region of a Relay setting.
func relayRegion(s string) (*tailcfg.DERPRegion, error) {
	r := &tailcfg.DERPRegion{RegionID: 1, RegionCode: "relay"}
	for _, hp := range strings.Split(s, ",") {
		hp = strings.TrimSpace(hp)
		n := &tailcfg.DERPNode{RegionID: 1, HostName: hp}
		if h, ps, err := net.SplitHostPort(hp); err == nil {
			p, err := strconv.Atoi(ps)
			if err != nil || p < 1 || p > 65535 {
				return nil, fmt.Errorf("%w: tailcat relay %q: bad port", ErrBadAddr, trunc(hp))
			}
			n.HostName, n.DERPPort = h, p
		}
		if n.HostName == "" || strings.ContainsAny(n.HostName, "/ ") {
			return nil, fmt.Errorf("%w: tailcat relay %q: want host or host:port", ErrBadAddr, trunc(hp))
		}
		n.Name = n.HostName
		r.Nodes = append(r.Nodes, n)
	}
	return r, nil
}

// tailcatState is TailcatStateFile.
type tailcatState struct {
	Source string              `json:"source"` // the DERP map URL the region came from
	Region *tailcfg.DERPRegion `json:"region"`
	Token  string              `json:"token"` // for people; not read back
}

// tailcatRegion picks the DERP region a listener serves from: own's
// (Listen on a saved token), o.Relay, o.DERPMap, the saved state, or a
// fetched map (startTailcat saves the pick).
func (m *Manager) tailcatRegion(ctx context.Context, own *tailcat.ConnInfo) (*tailcfg.DERPRegion, error) {
	o := m.o.Tailcat
	if own != nil && own.RegionID > 0 {
		o.RegionID = own.RegionID
	}
	switch {
	case own != nil:
		if len(own.Region) > 0 {
			return own.Region[0], nil
		}
	case o.Relay != "":
		return relayRegion(o.Relay)
	}
	if o.DERPMap != nil {
		return pickRegion(ctx, o.DERPMap, o.RegionID)
	}
	src := cmpOr(o.DERPMapURL, tailcat.DefaultDERPMapURL)
	statePath := ""
	if o.StateDir != "" {
		statePath = filepath.Join(o.StateDir, TailcatStateFile)
		if b, err := os.ReadFile(statePath); err == nil {
			var st tailcatState
			if json.Unmarshal(b, &st) == nil && st.Source == src && st.Region != nil &&
				len(st.Region.Nodes) > 0 && (o.RegionID == 0 || o.RegionID == st.Region.RegionID) {
				return st.Region, nil
			}
		}
	}
	dm, err := tailcat.FetchDERPMap(ctx, tailcat.DERPMapURL(src), tailcat.ExpandForServer)
	if err != nil {
		return nil, fmt.Errorf("tailcat: derp map: %w", err)
	}
	return pickRegion(ctx, dm, o.RegionID)
}

// pickRegion returns region id of dm, or with id 0 the only region, or
// the nearest by netcheck (falling back to the lowest id).
func pickRegion(ctx context.Context, dm *tailcfg.DERPMap, id int) (*tailcfg.DERPRegion, error) {
	if id != 0 {
		if r := dm.Regions[id]; r != nil {
			return r, nil
		}
		return nil, fmt.Errorf("tailcat: no DERP region %d in the map", id)
	}
	ids := make([]int, 0, len(dm.Regions))
	for id, r := range dm.Regions {
		//lint:ignore SA1019 maps still set Avoid; tailscale's netcheck skips both
		if r != nil && !r.Avoid && !r.NoMeasureNoHome && len(r.Nodes) > 0 {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return nil, errors.New("tailcat: the DERP map has no usable region")
	}
	slices.Sort(ids)
	if len(ids) > 1 {
		if best, err := tailcat.PickBestRegion(ctx, dm); err == nil && best != 0 {
			return dm.Regions[best], nil
		}
	}
	return dm.Regions[ids[0]], nil
}

func saveTailcatState(path string, st tailcatState) error {
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
