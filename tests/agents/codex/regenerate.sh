#!/usr/bin/env bash
# Regenerates tests/fixtures/agents/codex-<version>/ by running the real Codex CLI (npm
# @openai/codex, pinned below) against tests/agents/fake_openai.py, one scenario of
# scenarios.json at a time, headless (`codex exec`), in a fresh CODEX_HOME; the scenario
# `revert` drives its terminal UI in tmux instead (interactive.py).
#
#   tests/agents/codex/regenerate.sh [CODEX_BIN [SCENARIO ...]]
#
# Without scenarios it writes them all. Without CODEX_BIN it installs the pinned package into target/agents/ (npm must reach the
# registry). CHATSURFACE_AGENT_FIXTURES writes them under another folder (CI compares so). Each scenario's rollout is copied as Codex wrote it.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
version=0.169.0
codex="${1:-}"
if [ -z "$codex" ]; then
  mkdir -p "$root/target/agents"
  (cd "$root/target/agents" && npm install --silent --no-audit --no-fund "@openai/codex@$version")
  codex="$root/target/agents/node_modules/.bin/codex"
fi
"$codex" --version | grep -q "$version" || { echo "error: $codex is not Codex $version" >&2; exit 1; }
out="${CHATSURFACE_AGENT_FIXTURES:-$root/tests/fixtures/agents}/codex-$version"
work="$(mktemp -d /tmp/chatsurface-codex-XXXXXX)"
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
scenarios="${*:2}"
[ -n "$scenarios" ] || scenarios="$(python3 -c "import json,sys; print(' '.join(json.load(open(sys.argv[1]))))" "$here/scenarios.json") revert"
for scenario in $scenarios; do
  if [ "$scenario" = revert ]; then
    python3 "$here/interactive.py" "$codex" "$out/revert"
    continue
  fi
  dir="$work/$scenario"
  mkdir -p "$dir/home" "$dir/project"
  python3 -c "import json,sys; json.dump(json.load(open(sys.argv[1]))[sys.argv[2]]['script'], open(sys.argv[3], 'w'))" \
    "$here/scenarios.json" "$scenario" "$dir/script.json"
  python3 "$here/../fake_openai.py" "$dir/script.json" "$dir/port" "$dir/requests.jsonl" &
  server=$!
  for _ in $(seq 50); do [ -s "$dir/port" ] && break; sleep 0.1; done
  cat > "$dir/home/config.toml" <<TOML
model = "gpt-fake"
model_provider = "fake"
[model_providers.fake]
name = "Fake"
base_url = "http://127.0.0.1:$(cat "$dir/port")/v1"
env_key = "FAKE_OPENAI_KEY"
wire_api = "responses"
TOML
  prompt=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]]['prompt'])" "$here/scenarios.json" "$scenario")
  (cd "$dir/project" && git init -q && CODEX_HOME="$dir/home" FAKE_OPENAI_KEY=sk-test \
    timeout 120 "$codex" exec --skip-git-repo-check "$prompt" > "$dir/stdout" 2>&1) ||
    { echo "error: $scenario: codex failed:" >&2; cat "$dir/stdout" >&2; exit 1; }
  kill "$server"
  rm -rf "${out:?}/$scenario"
  mkdir -p "$out/$scenario"
  find "$dir/home/sessions" -name '*.jsonl' -exec cp {} "$out/$scenario/" \;
  echo "$scenario: $(ls "$out/$scenario" | tr '\n' ' ')"
done
