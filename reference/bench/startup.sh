#!/usr/bin/env bash
# Measures how much of a default `chatconform` run (bundled reference server,
# reference profile) is spent outside the checks: process start, the bundled
# server's start-up (world, rendering, certificate), preflight, discovery and
# shutdown. Runs it RUNS times (default 5) and prints, per run and as the
# median, the process's wall time, the checks' own time (checksNs of the JSON
# report) and the share outside the checks.
#
# Usage: reference/bench/startup.sh            RUNS=5 by default
set -euo pipefail
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/chatconform" ./cmd/chatconform
runs=${RUNS:-5}
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-4s %10s %10s %8s\n' run wall_s checks_s outside
shares=()
for i in $(seq 1 "$runs"); do
	start=$(date +%s%N)
	"$tmp/chatconform" --seed "$i" --json "$tmp/r.json" >/dev/null
	end=$(date +%s%N)
	wall=$(( (end - start) / 1000000 ))
	checks=$(( $(grep -o '"checksNs": *[0-9]*' "$tmp/r.json" | grep -o '[0-9]*$') / 1000000 ))
	share=$(( 100 * (wall - checks) / wall ))
	shares+=("$share")
	printf '%-4s %10.3f %10.3f %7s%%\n' "$i" "$(echo "$wall/1000" | bc -l)" "$(echo "$checks/1000" | bc -l)" "$share"
done
median=$(printf '%s\n' "${shares[@]}" | sort -n | sed -n "$(( (runs + 1) / 2 ))p")
echo "median share of wall time outside the checks: ${median}% (goal: at most 30%)"
