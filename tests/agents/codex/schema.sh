#!/usr/bin/env bash
# Checks (or, with --write, refreshes) the app-server schema files the Codex bridge keeps in
# app/src/bridges/codex/schema/ against what the pinned Codex generates
# (`codex app-server generate-json-schema --experimental`): the bridge's field names are
# tested against those files, so they must be the pinned Codex's own.
#
#   tests/agents/codex/schema.sh CODEX_BIN [--write]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
kept="$here/../../../app/src/bridges/codex/schema"
codex="$1"
generated="$(mktemp -d /tmp/chatsurface-codex-schema-XXXXXX)"
trap 'rm -rf "$generated"' EXIT
"$codex" app-server generate-json-schema --experimental --out "$generated" >/dev/null
status=0
while IFS= read -r -d '' file; do
  name="${file#"$kept"/}"
  if [ "${2:-}" = --write ]; then
    cp "$generated/$name" "$file"
  elif ! cmp -s "$generated/$name" "$file"; then
    echo "error: $name differs from what $("$codex" --version) generates (run $0 CODEX_BIN --write)" >&2
    status=1
  fi
done < <(find "$kept" -name '*.json' -print0)
[ "$status" = 0 ] && echo "codex schema: $(find "$kept" -name '*.json' | wc -l) files as the pinned Codex generates them"
exit "$status"
