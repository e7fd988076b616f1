#!/usr/bin/env bash
# Regenerates tests/fixtures/agents/gemini-<version>/ by running the real Gemini CLI (npm
# @google/gemini-cli, pinned below) against tests/agents/fake_gemini.py, one scenario of
# scenarios.json at a time, headless (`gemini -p`), in a fresh HOME, then the interactive
# session of interactive.py in tmux (questions, /rewind, an interrupted turn); then two of
# the scenarios with the older Gemini CLI pinned as whole_file_version (installed into a
# temporary folder), whose sessions are whole-file `.json`.
#
#   tests/agents/gemini/regenerate.sh [GEMINI_BIN]
#
# Without GEMINI_BIN it installs the pinned package into target/agents/ (npm must reach the
# registry). CHATSURFACE_AGENT_FIXTURES writes them under another folder (CI compares so).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
version=0.61.0
# The last release before sessions became JSON Lines: it rewrites one pretty-printed
# session-*.json at each change, the format older sessions on a machine are in.
whole_file_version=0.30.0
gemini="${1:-}"
if [ -z "$gemini" ]; then
  mkdir -p "$root/target/agents"
  (cd "$root/target/agents" && npm install --silent --no-audit --no-fund "@google/gemini-cli@$version")
  gemini="$root/target/agents/node_modules/.bin/gemini"
fi
"$gemini" --version | grep -q "^$version" || { echo "error: $gemini is not Gemini CLI $version" >&2; exit 1; }
fixtures="${CHATSURFACE_AGENT_FIXTURES:-$root/tests/fixtures/agents}"
work="$(mktemp -d /tmp/chatsurface-gemini-XXXXXX)"
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT

# run_scenarios GEMINI_BIN OUT SCENARIO…: each scenario of scenarios.json, headless.
run_scenarios() {
  local gemini="$1" out="$2"
  shift 2
  for scenario in "$@"; do
    dir="$work/$(basename "$out")-$scenario"
    mkdir -p "$dir/home/.gemini" "$dir/project"
    echo '{"security":{"auth":{"selectedType":"gemini-api-key"}}}' > "$dir/home/.gemini/settings.json"
    python3 -c "import json,sys; json.dump(json.load(open(sys.argv[1]))[sys.argv[2]]['script'], open(sys.argv[3], 'w'))" \
      "$here/scenarios.json" "$scenario" "$dir/script.json"
    python3 "$here/../fake_gemini.py" "$dir/script.json" "$dir/port" "$dir/requests.jsonl" &
    local server=$!
    for _ in $(seq 50); do [ -s "$dir/port" ] && break; sleep 0.1; done
    local prompt mode
    prompt=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]]['prompt'])" "$here/scenarios.json" "$scenario")
    mode=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]].get('approval_mode', 'default'))" "$here/scenarios.json" "$scenario")
    (cd "$dir/project" && HOME="$dir/home" GEMINI_CLI_TRUST_WORKSPACE=true GEMINI_API_KEY=test-key \
      GOOGLE_GEMINI_BASE_URL="http://127.0.0.1:$(cat "$dir/port")" \
      timeout 120 "$gemini" --approval-mode "$mode" -p "$prompt" > "$dir/stdout" 2>&1) ||
      { echo "error: $scenario: gemini failed:" >&2; cat "$dir/stdout" >&2; exit 1; }
    kill "$server"
    rm -rf "${out:?}/$scenario"
    mkdir -p "$out/$scenario"
    # The session's file, and its sub-agents' under chats/<session id>/.
    (cd "$dir"/home/.gemini/tmp/*/chats && find . -name '*.json*' -exec cp --parents {} "$out/$scenario/" \;)
    echo "$scenario: $(cd "$out/$scenario" && find . -name '*.json*' | tr '\n' ' ')"
  done
}

run_scenarios "$gemini" "$fixtures/gemini-$version" \
  $(python3 -c "import json,sys; print(' '.join(json.load(open(sys.argv[1]))))" "$here/scenarios.json")
python3 "$here/interactive.py" "$gemini" "$fixtures/gemini-$version/interactive"

old="$work/whole-file"
mkdir -p "$old"
(cd "$old" && npm install --silent --no-audit --no-fund "@google/gemini-cli@$whole_file_version")
"$old/node_modules/.bin/gemini" --version | grep -q "^$whole_file_version" ||
  { echo "error: npm did not install Gemini CLI $whole_file_version" >&2; exit 1; }
run_scenarios "$old/node_modules/.bin/gemini" "$fixtures/gemini-$whole_file_version" plain-ru shell-command
