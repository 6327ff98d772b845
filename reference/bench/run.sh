#!/usr/bin/env bash
# Measures the reference server on this machine, on loopback only:
#   - its speed as a share of the floor (a do-nothing Go HTTPS server answering
#     the same bytes), for a 100-message page, GET /v1/user and a send;
#   - how it holds up under abuse: costly senders, 4,000-character prose,
#     1,000 slowloris connections, bodies that never complete, 2,000 idle
#     keep-alive connections, a searcher in a 200,000-message room;
#   - with MEMORY=1, its RSS after start-up and after 200,000 sends of 4,000
#     characters (a few minutes).
# Every run is bounded in time and stops its servers.
#
# Usage: reference/bench/run.sh [chatref binary to measure instead of this tree's]
#   SCENARIOS=ratio,abuse,search   which parts to run (default all three)
#   DURATION=5s                    length of each load run
set -euo pipefail
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/chatbench" ./reference/bench/chatbench
chatref=${1:-}
if [ -z "$chatref" ]; then
	go build -o "$tmp/chatref" ./cmd/chatref
	chatref=$tmp/chatref
fi
scenarios=${SCENARIOS:-ratio,abuse,search}
duration=${DURATION:-5s}
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), load $(cut -d' ' -f1-3 /proc/loadavg)"
for s in ${scenarios//,/ }; do
	echo "== $s"
	case $s in
	ratio) "$tmp/chatbench" ratio --chatref "$chatref" --duration "$duration" ;;
	abuse) "$tmp/chatbench" abuse --chatref "$chatref" --duration "$duration" ;;
	search) "$tmp/chatbench" search --duration "$duration" ;;
	esac
done
if [ "${MEMORY:-0}" = 1 ]; then
	echo "== memory"
	"$tmp/chatbench" memory --chatref "$chatref" --sends 200000
fi
