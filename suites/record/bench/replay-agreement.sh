#!/usr/bin/env bash
# replay-agreement.sh: how far a replay of the checks (chatconform replay
# --checks) re-derives a run's verdicts. For each fault or variant of the
# self-test named (one per line on standard input, as `chatconform selftest
# --list` names them), it serves the reference decorated with it, runs the
# core profile against it with --record and --json, runs the checks again
# against the record, and compares the two reports with chatconform diff.
#
#   go build -o /tmp/chatconform ./cmd/chatconform
#   /tmp/chatconform selftest --list | awk '$1=="fault"{print $2}' | shuf -n 40 --random-source=<(yes) \
#     | suites/record/bench/replay-agreement.sh /tmp/chatconform
#
# One line per fault: the run's and the replay's exit codes, whether the
# verdicts agree, and what the replay served; then the totals.
set -u
bin=${1:?usage: replay-agreement.sh CHATCONFORM < names}
runs=0 agree=0 misses=0
while read -r name; do
	[ -n "$name" ] || continue
	dir=$(mktemp -d)
	(cd "$dir" && exec "$bin" selftest --serve "$name" --seed 1 >serve.log 2>&1) &
	srv=$!
	for _ in $(seq 1 150); do [ -f "$dir/selftest-target.json" ] && break; sleep 0.2; done
	(cd "$dir" && "$bin" --target selftest-target.json --profile core --seed 1 --eventually 3s \
		--record run.jsonl --json run.json >run.log 2>&1)
	rc1=$?
	kill "$srv" 2>/dev/null; wait "$srv" 2>/dev/null
	(cd "$dir" && "$bin" replay --checks run.jsonl --json replay.json >replay.log 2>&1)
	rc2=$?
	same=$(cd "$dir" && "$bin" diff run.json replay.json 2>&1 | tail -1)
	served=$(grep -h "answers served" "$dir/replay.log")
	n=$(sed -n 's/.*served, \([0-9]*\) requests it holds no answer for.*/\1/p' <<<"$served")
	runs=$((runs + 1)) misses=$((misses + ${n:-0}))
	case "$same" in *"0 new failures, 0 fixed, 0 no longer judged, 0 other changes"*) [ "$rc1" = "$rc2" ] && agree=$((agree + 1)) ;; esac
	printf '%s\trun %s, replay %s\t%s\t%s\n' "$name" "$rc1" "$rc2" "${same#chatconform diff: }" "${served#chatconform replay: }"
	rm -rf "$dir"
done
printf 'runs %d, same verdicts and exit code %d, requests the records held no answer for %d\n' "$runs" "$agree" "$misses"
