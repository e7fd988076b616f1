"""An MCP client (the official Python SDK) driving `chatsurface mcp` over stdio.

Run by app/tests/mcp.rs against a real `chatsurface serve`:

    python3 tests/mcp_client.py PATH/TO/chatsurface

The environment (CHATSURFACE_DATA_DIR, CHATSURFACE_SOCKET, CHATSURFACE_TOKEN) is passed on to
the server. The script and the Rust test take turns over this script's stdin and stdout, one
JSON line each: the script prints {"callId": …} after a timed question went pending and waits
for a line saying the operator answered; it prints {"blocking": true} before a question that
waits for its answer, and {"batch_id": …} after opening a batch whose answer it then waits
for; it prints {"ok": true} at the end. Any failed check exits non-zero with
the reason on stderr.
"""

import asyncio
import json
import os
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

TOOLS = [
    "ask_user_question",
    "get_pending_answer",
    "open_chat_clarification_batch",
    "open_thread",
    "post_message",
    "submit_chat_clarification_response",
]


def say(message):
    print(json.dumps(message), flush=True)


async def heard():
    return (await asyncio.to_thread(sys.stdin.readline)).strip()


def text_of(result):
    return "".join(block.text for block in result.content if block.type == "text")


def value_of(result, what):
    text = text_of(result)
    if result.isError:
        raise AssertionError(f"{what} failed: {text}")
    return json.loads(text)


def check(condition, message):
    if not condition:
        raise AssertionError(message)


async def drive(binary):
    server = StdioServerParameters(
        command=binary, args=["mcp", "--session", "mcp-test"], env=dict(os.environ)
    )
    async with stdio_client(server) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()

            names = sorted(tool.name for tool in (await session.list_tools()).tools)
            check(names == TOOLS, f"tools: {names}")

            thread = value_of(
                await session.call_tool(
                    "open_thread", {"id": "release", "title": "Release 4.12"}
                ),
                "open_thread",
            )
            check(thread.get("id") == "release", f"open_thread: {thread}")
            message = value_of(
                await session.call_tool(
                    "post_message", {"text": "Preparing **4.12**.", "thread_id": "release"}
                ),
                "post_message",
            )
            check(isinstance(message.get("id"), str), f"post_message: {message}")

            refused = await session.call_tool(
                "submit_chat_clarification_response",
                {"batch_id": "any", "answers": [{"item_id": "q", "skipped": True}]},
            )
            check(
                refused.isError and "CHATSURFACE_OPERATOR_TOKEN" in text_of(refused),
                f"submit without the operator token: {text_of(refused)}",
            )

            questions = [
                {
                    "id": "env",
                    "question": "Where should 4.12 go first?",
                    "header": "Target",
                    "options": [
                        {"label": "Staging (Recommended)", "description": "Safe"},
                        {"label": "Production"},
                    ],
                },
                {
                    "id": "checks",
                    "question": "Which checks must pass?",
                    "options": [{"label": "lint"}, {"label": "tests"}, {"label": "docs"}],
                    "multi_select": True,
                },
                {"id": "notes", "question": "Anything else?"},
            ]
            pending = value_of(
                await session.call_tool(
                    "ask_user_question", {"questions": questions, "timeout": 1}
                ),
                "ask_user_question (timed)",
            )
            check(
                pending.get("pending") is True
                and isinstance(pending.get("callId"), str)
                and "never approval" in pending.get("message", ""),
                f"pending: {pending}",
            )
            call_id = pending["callId"]

            still = value_of(
                await session.call_tool("get_pending_answer", {"callId": call_id}),
                "get_pending_answer (before the answer)",
            )
            check(
                still.get("pending") is True and still.get("callId") == call_id,
                f"still pending: {still}",
            )

            say({"callId": call_id})
            check(await heard() == "answered", "the test did not answer")
            answered = value_of(
                await session.call_tool(
                    "get_pending_answer", {"callId": call_id, "wait": 10}
                ),
                "get_pending_answer",
            )
            expected = {
                "answers": [
                    {"id": "env", "selected": ["Production"], "custom": "after 18:00"},
                    {"id": "checks", "selected": ["docs", "lint"]},
                    {"id": "notes", "selected": []},
                ]
            }
            check(answered == expected, f"answers: {answered}")

            say({"blocking": True})
            blocking = value_of(
                await session.call_tool(
                    "ask_user_question",
                    {
                        "questions": [
                            {
                                "id": "go",
                                "question": "Proceed with the rollout?",
                                "options": [{"label": "Yes"}, {"label": "No"}],
                            }
                        ]
                    },
                ),
                "ask_user_question (blocking)",
            )
            check(
                blocking == {"answers": [{"id": "go", "selected": ["Yes"]}]},
                f"blocking answer: {blocking}",
            )

            opened = value_of(
                await session.call_tool(
                    "open_chat_clarification_batch",
                    {
                        "id": "ship",
                        "thread_id": "release",
                        "title": "Ship 4.12?",
                        "items": [{"id": "ok", "prompt": "Ship 4.12 today?", "kind": "yes_no"}],
                        "general_field": True,
                    },
                ),
                "open_chat_clarification_batch",
            )
            check(opened == {"batch_id": "ship"}, f"opened: {opened}")
            say(opened)
            shipped = value_of(
                await session.call_tool("get_pending_answer", {"callId": "ship", "wait": 20}),
                "get_pending_answer (batch)",
            )
            check(
                shipped
                == {"answers": [{"id": "ok", "selected": ["yes"]}], "general": "after 18:00"},
                f"batch answer: {shipped}",
            )
    say({"ok": True})


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: mcp_client.py PATH/TO/chatsurface")
    try:
        asyncio.run(asyncio.wait_for(drive(sys.argv[1]), timeout=90))
    except AssertionError as error:
        sys.exit(f"mcp_client: {error}")


if __name__ == "__main__":
    main()
