#!/usr/bin/env python3
"""Makes a large Claude Code transcript for the open-to-first-frame benchmark, from one the
real Claude Code wrote: its conversation records (prompt, the assistant's words and Bash
call, the tool result, the reply) are repeated with fresh uuids, each copy chained to the
last, and each tool result padded to the given size, as long tool outputs make real
sessions large. The harness records of the original (system prompts, attachments) are kept
once, at the start.

Usage: inflate.py SOURCE.jsonl OUT.jsonl MEGABYTES [TOOL_OUTPUT_KIB]
"""
import json
import sys
import uuid

source, out, megabytes = sys.argv[1], sys.argv[2], float(sys.argv[3])
output_kib = int(sys.argv[4]) if len(sys.argv) > 4 else 16
records = [json.loads(line) for line in open(source, encoding="utf-8")]
conversation = [r for r in records if r.get("type") in ("user", "assistant")]
harness = [r for r in records if r.get("type") not in ("user", "assistant", "last-prompt")]
limit = int(megabytes * 1024 * 1024)
written = 0
parent = None
copy = 0
with open(out, "w", encoding="utf-8") as f:
    for record in harness:
        line = json.dumps(record) + "\n"
        f.write(line)
        written += len(line)
    while written < limit:
        copy += 1
        for record in conversation:
            record = json.loads(json.dumps(record))
            record["uuid"] = str(uuid.uuid4())
            record["parentUuid"] = parent
            parent = record["uuid"]
            message = record.get("message", {})
            if record["type"] == "assistant" and message.get("id"):
                message["id"] = f"{message['id']}_{copy}"
            for block in message.get("content", []) if isinstance(message.get("content"), list) else []:
                if block.get("type") == "tool_use":
                    block["id"] = f"{block['id']}_{copy}"
                if block.get("type") == "tool_result":
                    block["tool_use_id"] = f"{block['tool_use_id']}_{copy}"
                    block["content"] = "hello-from-bash\n" + ("x" * 100 + "\n") * (output_kib * 10)
            line = json.dumps(record, ensure_ascii=False) + "\n"
            f.write(line)
            written += len(line.encode())
    f.write(json.dumps({"type": "last-prompt", "leafUuid": parent}) + "\n")
print(f"{out}: {written / 1048576:.1f} MiB, {copy} copies of the conversation")
