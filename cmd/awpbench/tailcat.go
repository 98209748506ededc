package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"tailscale.com/envknob"

	"github.com/awp-tray/awp-tray/peer/transport"
	"github.com/awp-tray/awp-tray/peer/transport/tailcat/relaytest"
)

// tailcatFig is figure 7: the tailcat binding through an in-process DERP
// relay and STUN server on 127.0.0.1, alive until both children are done.
func (b *bench) tailcatFig() error {
	o, r := b.o, &b.res
	// As peer/transport's tailcat tests: no port-mapping probes of the
	// LAN gateway, no interface addresses among the advertised endpoints
	// (only the STUN-learned 127.0.0.1 one). Set in this process (its
	// own raw measurement) and inherited by the children.
	envknob.Setenv("TS_DISABLE_PORTMAPPER", "1")
	envknob.Setenv("TS_DEBUG_OMIT_LOCAL_ADDRS", "1")
	if err := b.tunnelTCP(); err != nil {
		return fmt.Errorf("tcp baseline: %w", err)
	}
	relay, mapFile, err := b.tailcatRelay()
	if err != nil {
		return err
	}
	defer relay.Close()
	rawSize := int64(o.tunnelRawMiB) << 20
	rawMB := float64(rawSize) / 1e6
	rr, err := tailcatRawMBPerSec(transport.TailcatOptions{DERPMap: relay.Map}, rawSize)
	if err != nil {
		return fmt.Errorf("raw tailcat: %w", err)
	}
	raw := rr.mbs
	b.printf("limit: %.0f MB/s raw TCP through a tailcat tunnel (two transport Managers, in-process relay, %d MiB after a 4 MiB warm-up, one process)",
		raw, o.tunnelRawMiB)
	bd := binding{name: "tailcat", recv: []string{"--listen", transport.TailcatListen, "--derp-map", mapFile},
		send: []string{"--derp-map", mapFile}, trust: true}
	r2, err := b.runRaw2("tailcat-raw2", rawSize, bd)
	if err != nil {
		return fmt.Errorf("raw tailcat, two processes: %w", err)
	}
	b.printf("   the same raw stream between two processes (as the nodes are): %.0f MB/s (CPU %.1f ms per MB, in one process %.1f)",
		r2.mbs, r2.cpu*1000/rawMB, rr.cpu*1000/rawMB)
	// The msgs workload, alternated with the same over tcp:// (each round
	// is a fraction of a second of work: run once after the other, the two
	// figures saw different moments of a shared host).
	alt, err := b.msgsAlternated(o.tunnelN, tailcatMsgsRounds, []string{"tailcat-tcp-msgs", "tailcat-msgs"}, []binding{tcpBinding, bd})
	if err != nil {
		return fmt.Errorf("msgs: %w", err)
	}
	tcpAlt, m := alt[0], alt[1]
	br, err := b.tunnelBlobRun("tailcat", bd)
	if err != nil {
		return err
	}
	r.TailcatMsgsRounds = tailcatMsgsRounds
	r.TailcatMsgsPerS = round(m.median(), 0)
	r.TailcatTCPMsgsPerS = round(tcpAlt.median(), 0)
	r.TailcatMsgsRatio = round(r.TailcatMsgsPerS/r.TailcatTCPMsgsPerS, 4)
	r.TailcatConnectMS = round(m.conn.ConnectS*1000, 2)
	r.TailcatBlobMBs = round(br.mbPerS(), 1)
	r.TailcatBlobTransMB = round(br.transferMBPerS(), 1)
	r.TailcatRawMBs = round(raw, 1)
	r.TailcatRaw2ProcMBs = round(r2.mbs, 1)
	r.TailcatBlobRatio, r.TailcatBlobRatio2Proc, r.TailcatBlobRatioCeiling = blobRatios(r.TailcatBlobMBs, r.TailcatRawMBs, r.TailcatRaw2ProcMBs)
	r.RSSTailcatSenderMB = round(max(m.sd.RSSMB, br.sd.RSSMB), 1)
	r.RSSTailcatRecvMB = round(max(m.rd.RSSMB, br.rd.RSSMB), 1)
	b.printf("7. tailcat: %d msgs: %.0f msgs/s (tcp %.0f, x%.2f; medians of %d rounds alternated with tcp://; connect %.1f ms); %d MiB blob: %.1f MB/s (staging %.3f s, then %.1f MB/s; tcp %.1f MB/s); raw tailcat %.0f MB/s; ratio %.4f",
		o.tunnelN, r.TailcatMsgsPerS, r.TailcatTCPMsgsPerS, r.TailcatMsgsRatio, tailcatMsgsRounds, r.TailcatConnectMS,
		o.tunnelBlobMiB, r.TailcatBlobMBs, br.staging, r.TailcatBlobTransMB, r.TunnelTCPBlobMBs, raw, r.TailcatBlobRatio)
	b.printf("   msgs/s of each round: tailcat %s; tcp %s", rates(m.rates), rates(tcpAlt.rates))
	b.printf("   the blob against the raw stream between two processes (%.0f MB/s): ratio %.4f; its ceiling, chunk data being base64, between two processes: %.2f x %.1f / %.1f = %.4f (%.0f%% of it reached)",
		r.TailcatRaw2ProcMBs, r.TailcatBlobRatio2Proc,
		base64Payload, r.TailcatRaw2ProcMBs, r.TailcatRawMBs, r.TailcatBlobRatioCeiling, 100*r.TailcatBlobRatio/r.TailcatBlobRatioCeiling)
	b.printf("   issue 22: tailcat_blob_ratio %.4f, goal >= %.1f: %s; tailcat_msgs_ratio (msgs/s / tcp's at the same size, medians of alternated rounds) %.4f, goal >= %.1f: %s",
		r.TailcatBlobRatio, goalTunnelBlobRatio, verdict(r.TailcatBlobRatio >= goalTunnelBlobRatio),
		r.TailcatMsgsRatio, goalTailcatMsgsRatio, verdict(r.TailcatMsgsRatio >= goalTailcatMsgsRatio))
	b.printf("   RSS (VmHWM) tailcat sender %.1f MiB, receiver %.1f MiB; goal <= %d: %s",
		r.RSSTailcatSenderMB, r.RSSTailcatRecvMB, goalTailcatRSSMB, verdict(max(r.RSSTailcatSenderMB, r.RSSTailcatRecvMB) <= goalTailcatRSSMB))
	return nil
}

// tailcatRelay starts the in-process DERP relay and STUN server the
// tailcat figure runs on, and writes its DERP map where the children read
// it (-derp-map).
func (b *bench) tailcatRelay() (*relaytest.Relay, string, error) {
	relay, err := relaytest.Start(nil)
	if err != nil {
		return nil, "", err
	}
	dm, err := json.Marshal(relay.Map)
	if err != nil {
		relay.Close()
		return nil, "", err
	}
	mapFile := filepath.Join(b.tmp, "derpmap.json")
	if err := os.WriteFile(mapFile, dm, 0o600); err != nil {
		relay.Close()
		return nil, "", err
	}
	return relay, mapFile, nil
}
