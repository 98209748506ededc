#!/bin/sh
# The "Tray app" figures of BENCHMARKS.md, on the real binary under Xvfb
# with a private session bus and a tray host (app/smoketest):
#   - start → tray icon registered, start → node ready;
#   - idle CPU and RSS summed over every process the app runs, over
#     $AWP_IDLE_SECONDS (default 60), the node connected to one idle peer,
#     no window open;
#   - menu click → window mapped, the first window (the UI process starts)
#     and a second one, $AWP_LATENCY_RUNS times (default 5).
# The BENCH lines say whether each goal of issue 20 is met. To measure
# another build (an older one, for before/after), point AWP_TRAY_BIN and
# AWP_BIN at its binaries. The whole log goes to build/measure-idle.log.
set -eu
cd "$(dirname "$0")/../.."
mkdir -p build
export AWP_IDLE_SECONDS="${AWP_IDLE_SECONDS:-60}" AWP_LATENCY_RUNS="${AWP_LATENCY_RUNS:-5}"
echo "measure-idle: $(date -u +%FT%TZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
status=0
scripts/app/smoke.sh -run '^(TestStartupAndIdle|TestOpenWindowLatency)$' "$@" >build/measure-idle.log 2>&1 || status=$?
grep -h 'BENCH' build/measure-idle.log | sed 's/^ *[a-z_]*\.go:[0-9]*: //'
[ "$status" -eq 0 ] || { echo "measure-idle: the tests failed; see build/measure-idle.log" >&2; exit "$status"; }
