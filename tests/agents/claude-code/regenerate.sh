#!/usr/bin/env bash
# Regenerates tests/fixtures/agents/claude-code-<version>/ by running the real Claude Code
# (npm @anthropic-ai/claude-code, pinned below) against tests/agents/fake_anthropic.py, one
# scenario of scenarios.json at a time, headless (`claude -p`), in a fresh HOME, then the
# interactive session of interactive.py in tmux.
#
#   tests/agents/claude-code/regenerate.sh [CLAUDE_BIN]
#
# Without CLAUDE_BIN it installs the pinned package into target/agents/ (npm must reach the
# registry). CHATSURFACE_AGENT_FIXTURES writes them under another folder (CI compares so). Each scenario's transcript is copied as Claude Code wrote it: <scenario>/<session
# id>.jsonl, with <session id>/subagents/ beside it when a sub-agent ran.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
version=2.1.328
claude="${1:-}"
if [ -z "$claude" ]; then
  mkdir -p "$root/target/agents"
  (cd "$root/target/agents" && npm install --silent --no-audit --no-fund "@anthropic-ai/claude-code@$version")
  claude="$root/target/agents/node_modules/.bin/claude"
fi
"$claude" --version | grep -q "^$version " || { echo "error: $claude is not Claude Code $version" >&2; exit 1; }
out="${CHATSURFACE_AGENT_FIXTURES:-$root/tests/fixtures/agents}/claude-code-$version"
work="$(mktemp -d /tmp/chatsurface-claude-XXXXXX)"
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
for scenario in $(python3 -c "import json,sys; print(' '.join(json.load(open(sys.argv[1]))))" "$here/scenarios.json"); do
  dir="$work/$scenario"
  mkdir -p "$dir/home" "$dir/project"
  python3 -c "import json,sys; json.dump(json.load(open(sys.argv[1]))[sys.argv[2]]['script'], open(sys.argv[3], 'w'))" \
    "$here/scenarios.json" "$scenario" "$dir/script.json"
  python3 "$here/../fake_anthropic.py" "$dir/script.json" "$dir/port" "$dir/requests.jsonl" &
  server=$!
  for _ in $(seq 50); do [ -s "$dir/port" ] && break; sleep 0.1; done
  prompt=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]]['prompt'])" "$here/scenarios.json" "$scenario")
  allowed=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]].get('allowed_tools', ''))" "$here/scenarios.json" "$scenario")
  args=(-p "$prompt")
  [ -n "$allowed" ] && args+=(--allowedTools "$allowed")
  (cd "$dir/project" && HOME="$dir/home" ANTHROPIC_BASE_URL="http://127.0.0.1:$(cat "$dir/port")" \
    ANTHROPIC_API_KEY=sk-test CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 \
    timeout 120 "$claude" "${args[@]}" > "$dir/stdout" 2>&1) || { echo "error: $scenario: claude failed:" >&2; cat "$dir/stdout" >&2; exit 1; }
  kill "$server"
  projects=("$dir/home/.claude/projects"/*)
  rm -rf "${out:?}/$scenario"
  mkdir -p "$out/$scenario"
  (cd "${projects[0]}" && find . -name '*.jsonl' -exec cp --parents {} "$out/$scenario" \;)
  echo "$scenario: $(cd "$out/$scenario" && find . -name '*.jsonl' | tr '\n' ' ')"
done
# The interactive sessions (AskUserQuestion answered, a tool call declined with feedback,
# /rewind, /compact; in plan mode, a plan rejected and a question dismissed) run the real
# terminal UI in tmux.
python3 "$here/interactive.py" "$claude" "$out/interactive" interactive
python3 "$here/interactive.py" "$claude" "$out/plan" plan
