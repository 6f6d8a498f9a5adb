#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs or closes a fuzz campaign of one libFuzzer target (see tests/fuzz/README.md).
#
#   tests/fuzz/campaign.sh run TARGET SECONDS [SEED_DIR...]
#       Fuzzes TARGET (built in $EMBER_FUZZ_BUILD, default build-fuzz) for SECONDS of wall
#       time at nice 19 in one forked worker, on $EMBER_FUZZ_WORK/TARGET/corpus (default
#       campaign/), which starts as a copy of the committed tests/fuzz/corpus/TARGET. Crashes,
#       leaks, timeouts and OOMs are written to $EMBER_FUZZ_WORK/TARGET/artifacts/ and the
#       campaign goes on. The CPU seconds spent (user + sys, children included) are appended
#       to $EMBER_FUZZ_WORK/TARGET/cpu.log.
#   tests/fuzz/campaign.sh merge TARGET [DIR...]
#       Minimises the work corpus and DIRs (files up to EMBER_FUZZ_MERGE_MAX bytes, -merge=1
#       -use_counters=0 into a fresh folder; the committed regress-* files are kept whatever
#       they add) and puts the result in
#       tests/fuzz/corpus/TARGET, ready to commit; prints its file count and size.
#   tests/fuzz/campaign.sh stop TARGET
#       Ends a running campaign early (its CPU time is still logged).
#   tests/fuzz/campaign.sh cpu TARGET
#       Sums cpu.log: the CPU time this work folder has spent on TARGET.
set -euo pipefail
cd "$(dirname "$0")/../.."
cmd=$1 target=$2
build=${EMBER_FUZZ_BUILD:-build-fuzz}
work=${EMBER_FUZZ_WORK:-campaign}/$target
committed=tests/fuzz/corpus/$target
flags=(-rss_limit_mb=2048 -malloc_limit_mb=2048 -timeout=10 -max_len=65536)

case $cmd in
run)
  secs=$3
  shift 3
  mkdir -p "$work/corpus" "$work/artifacts" "$work/bin"
  [ -n "$(ls -A "$work/corpus")" ] || cp "$committed"/* "$work/corpus/"
  # A copy of the binary, so that rebuilding the tree does not change a running campaign.
  cp "$build/tests/fuzz/$target" "$work/bin/$target"
  start=$(date +%s)
  nice -n 19 /usr/bin/time -f "%U %S" -o "$work/time.tmp" "$work/bin/$target" -fork=1 \
    -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 -max_total_time="$secs" "${flags[@]}" \
    -artifact_prefix="$work/artifacts/" "$work/corpus" "$@" >"$work/log.txt" 2>&1 &
  echo $! >"$work/time.pid"
  wait $! || true
  read -r user sys < <(tail -n 1 "$work/time.tmp") # after "Command exited with ..."
  echo "$(date -u +%FT%TZ) wall=$(($(date +%s) - start)) user=$user sys=$sys" >>"$work/cpu.log"
  tail -1 "$work/cpu.log"
  ;;
merge)
  rm -rf "$work/merged"
  mkdir -p "$work/merged"
  shift 2
  # Files above EMBER_FUZZ_MERGE_MAX bytes (default 20000) are left out, and only edges count
  # (-use_counters=0; every hit-count bucket would keep nearly every file): the committed
  # corpus stays a few MB, and a campaign regrows the rest (make_model_seeds.py gives the
  # larger models back as seeds).
  rm -rf "$work/merge_in"
  mkdir -p "$work/merge_in"
  find "$work/corpus" "$@" -type f -size -"${EMBER_FUZZ_MERGE_MAX:-20000}"c \
    -exec cp {} "$work/merge_in/" \;
  "$build/tests/fuzz/$target" -merge=1 -use_counters=0 "${flags[@]}" "$work/merged" \
    "$work/merge_in" >"$work/merge.log" 2>&1
  cp "$committed"/regress-* "$work/merged/" 2>/dev/null || true
  rm -rf "$committed"
  mv "$work/merged" "$committed"
  echo "$target: $(ls "$committed" | wc -l) files, $(du -sb "$committed" | cut -f1) bytes"
  ;;
stop)
  # By process id: libFuzzer's parent first (it then starts no new job), then the running
  # job, which the parent waits for.
  parent=$(pgrep -P "$(cat "$work/time.pid")")
  kill -INT "$parent"
  sleep 0.5
  for sh in $(pgrep -P "$parent"); do
    for job in $(pgrep -P "$sh"); do kill -INT "$job"; done
  done
  ;;
cpu)
  awk '{for (i = 1; i <= NF; i++) { split($i, kv, "="); if (kv[1] == "user" || kv[1] == "sys") s += kv[2] }}
       END {printf "%.0f CPU seconds (%.2f h)\n", s, s / 3600}' "$work/cpu.log"
  ;;
*)
  echo "usage: $0 run TARGET SECONDS [SEED_DIR...] | stop TARGET | merge TARGET [DIR...] | cpu TARGET" >&2
  exit 2
  ;;
esac
