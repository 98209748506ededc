package main

import (
	"bytes"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
)

// TestMain lets the test binary play the children: awpbench re-executes
// itself (here: the test binary) with the "node" and "floor" subcommands.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "node" {
		os.Exit(childMain(os.Args[2:]))
	}
	if len(os.Args) > 1 && os.Args[1] == "floor" {
		os.Exit(floorMain(os.Args[2:]))
	}
	os.Exit(m.Run())
}

// TestQuickRun runs every figure with tiny sizes and checks the last line
// is one JSON object with every required field positive.
func TestQuickRun(t *testing.T) {
	var out, errb bytes.Buffer
	code := benchMain([]string{"-quick", "-n", "300", "-resume", "300", "-blob-mib", "2", "-handshakes", "10",
		"-json-lines", "5000", "-tcp-mib", "16", "-fsync-time", "50ms", "-timeout", "2m",
		"-tunnel-n", "200", "-tunnel-blob-mib", "1", "-tunnel-raw-mib", "8",
		"-scale-lines", "5000", "-scale-threads", "50", "-scale-blob-mb", "4", "-fleet-n", "12", "-fleet-window", "2s", "-dir", t.TempDir()}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	last := lines[len(lines)-1]
	var got map[string]any
	if err := json.Unmarshal([]byte(last), &got); err != nil {
		t.Fatalf("last line is not a JSON object: %v\n%s", err, out.String())
	}
	for _, f := range []string{"msgs_per_s", "msgs_limit", "msgs_ratio", "msgs_few_workers_per_s", "resume_100k_s", "blob_mb_s", "blob_limit_mb_s", "blob_disk_limit_mb_s",
		"blob_ratio", "handshake_ms", "handshake_p90_ms", "rss_mb", "rss_sender_mb", "rss_receiver_mb", "fsync_per_s",
		"tunnel_tcp_msgs_per_s", "tunnel_tcp_blob_mb_s", "wg_msgs_per_s", "wg_blob_mb_s", "wg_raw_mb_s", "wg_blob_ratio",
		"wg_raw_2proc_mb_s", "wg_blob_ratio_ceiling", "wg_stock_raw_mb_s", "wg_blob_ratio_stock",
		"tailcat_msgs_per_s", "tailcat_blob_mb_s", "tailcat_raw_mb_s", "tailcat_blob_ratio", "tailcat_raw_2proc_mb_s", "tailcat_blob_ratio_2proc", "tailcat_blob_ratio_ceiling", "tailcat_tcp_msgs_per_s", "tailcat_msgs_rounds", "blob_rounds",
		"scale_lines", "scale_threads", "scale_blobs", "scale_blob_mb", "scale_db_mb", "scale_gen_s", "scale_start_s", "scale_start_empty_s",
		"scale_threads_ms", "scale_threads_first_ms", "scale_threads_cpu_ms", "scale_open_ms", "scale_open_first_ms", "scale_rss_mb",
		"presence100_nodes", "presence100_edges", "presence100_diameter", "presence100_initial_s", "presence100_converge_s",
		"presence100_bytes_per_s", "presence100_bytes_per_s_max", "presence100_measured_heartbeat_s", "presence100_line_bytes",
		"presence100_lines_per_doc", "presence100_rss_mb",
		"idle_rss_mb", "idle_rss_receiver_mb", "idle_rss_sender_mb", "idle_after_blob_rss_mb",
		"latency_p50_ms", "latency_p99_ms", "latency_limit_ms", "latency_ratio", "latency_limit_hot_ms", "latency_ratio_hot", "latency_floor_ms", "latency_during_blob_p50_ms", "latency_during_blob_p99_ms",
		"blob_disk_ratio", "tailcat_msgs_ratio", "rss_msgs_sender_mb", "rss_msgs_receiver_mb", "rss_tailcat_sender_mb", "rss_tailcat_receiver_mb"} {
		v, ok := got[f].(float64)
		if !ok || v <= 0 {
			t.Errorf("%s = %v, want a positive number\n%s", f, got[f], last)
		}
	}
	t.Log(out.String())
}

func TestOnlyFlag(t *testing.T) {
	o, err := parseOptions([]string{"-quick", "-only", "handshake,msgs"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if !o.only["handshake"] || !o.only["msgs"] || o.only["blob"] || o.only["resume"] || o.only["wg"] || o.only["tailcat"] {
		t.Fatalf("only = %v", o.only)
	}
	if o.n != 2000 {
		t.Fatalf("-quick n = %d, want 2000", o.n)
	}
	if o.tunnelN != 500 || o.tunnelBlobMiB != 4 {
		t.Fatalf("-quick tunnel-n = %d, tunnel-blob-mib = %d, want 500, 4", o.tunnelN, o.tunnelBlobMiB)
	}
	o, err = parseOptions([]string{"-only", "wg,tailcat"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if !o.only["wg"] || !o.only["tailcat"] || o.only["msgs"] || o.tunnelN != 5000 || o.tunnelBlobMiB != 64 {
		t.Fatalf("only = %v, tunnel-n %d, tunnel-blob-mib %d", o.only, o.tunnelN, o.tunnelBlobMiB)
	}
	if _, err := parseOptions([]string{"-only", "nope"}, &bytes.Buffer{}); err == nil {
		t.Fatal("-only nope accepted")
	}
}

// TestAlternation: the alternated msgs rounds go A B, B A, A B…, and a
// binding's figure is the median of its rounds (the mean of the middle two
// for an even count).
func TestAlternation(t *testing.T) {
	var got []int
	for r := range 4 {
		got = append(got, altOrder(r, 2)...)
	}
	if want := []int{0, 1, 1, 0, 0, 1, 1, 0}; !slices.Equal(got, want) {
		t.Fatalf("order %v, want %v", got, want)
	}
	if m := (altRun{rates: []float64{30, 10, 20, 1000, 5}}).median(); m != 20 {
		t.Fatalf("median of 5 rounds = %v, want 20", m)
	}
	if m := (altRun{rates: []float64{40, 10, 20, 30}}).median(); m != 25 {
		t.Fatalf("median of 4 rounds = %v, want 25", m)
	}
}

// TestMedianRun: figure 3's blob fields come from the run of the median
// rate (the slower of the middle two for an even count), and its limit is
// the median of the limits.
func TestMedianRun(t *testing.T) {
	runs := []blobRun{{size: 1e6, total: 1}, {size: 1e6, total: 4}, {size: 1e6, total: 2}}
	if m := medianRun(runs); m.total != 2 {
		t.Fatalf("median of 1, 0.25 and 0.5 MB/s: the run of %v s, want 2", m.total)
	}
	if m := medianRun(runs[:2]); m.total != 4 {
		t.Fatalf("median of 1 and 0.25 MB/s: the run of %v s, want the slower (4)", m.total)
	}
	if m := medianOf([]float64{500, 700, 400}); m != 500 {
		t.Fatalf("median limit %v, want 500", m)
	}
}
