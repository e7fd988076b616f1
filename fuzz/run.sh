#!/usr/bin/env bash
# Runs each fuzz target for a bounded time (default 60 s each) over its corpus in
# fuzz/corpus/<target>/, as .ci/run does: cargo-fuzz (libFuzzer) on the nightly toolchain.
#
#   fuzz/run.sh [SECONDS [TARGET ...]]
#
# New inputs go to a scratch folder, not into the committed corpus (`cargo fuzz cmin` and a
# commit keep the ones worth keeping). A crash exits non-zero with the input that crashed
# under fuzz/artifacts/<target>/; it becomes a regression test of the reader or parser it hit.
# Built without the sanitizer and without optimisation: the targets are safe Rust, where a
# panic is the failure looked for, and this build takes a few minutes on two cores instead of
# a quarter of an hour.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
seconds="${1:-60}"
targets="${*:2}"
[ -n "$targets" ] || targets="event_log agent_transcript api_bodies"
cd "$here"
cargo +nightly fuzz build --dev --sanitizer none
scratch="$(mktemp -d /tmp/chatsurface-fuzz-XXXXXX)"
trap 'rm -rf "$scratch"' EXIT
for target in $targets; do
  mkdir -p "$scratch/$target"
  status=0
  cargo +nightly fuzz run --dev --sanitizer none "$target" "$scratch/$target" "corpus/$target" -- \
    -max_total_time="$seconds" -max_len=65536 > "$scratch/$target.log" 2>&1 || status=$?
  if [ "$status" -ne 0 ]; then
    tail -n 40 "$scratch/$target.log" >&2
    echo "error: fuzz target $target crashed (exit $status); the input is under fuzz/artifacts/$target/" >&2
    exit 1
  fi
  grep -E "^Done [0-9]+ runs" "$scratch/$target.log" || true
  echo "$target: no crash in ${seconds} s"
done
