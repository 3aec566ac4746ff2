#!/usr/bin/env python3
"""echo_server.py - the benchmarks' Python MCP server (plain stdlib, newline JSON-RPC on
stdio): the interpreted server an agent's tool often is. Answers initialize, tools/list
(one tool, "echo") and tools/call (the call's arguments echoed back as one text item),
ping and "count" (bytes of every notification seen so far); notifications get no answer."""
import json
import sys


def main():
    out = sys.stdout.buffer
    counted = 0
    for line in sys.stdin.buffer:
        msg = json.loads(line)
        if "id" not in msg:
            counted += len(line)
            continue
        method = msg.get("method")
        if method == "initialize":
            result = {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                      "serverInfo": {"name": "bench-echo-py", "version": "1"}}
        elif method == "tools/list":
            result = {"tools": [{"name": "echo", "description": "echoes its arguments",
                                 "inputSchema": {"type": "object"}}]}
        elif method == "tools/call":
            args = msg.get("params", {}).get("arguments", {})
            result = {"content": [{"type": "text", "text": json.dumps(args)}], "isError": False}
        elif method == "count":
            result = {"bytes": counted}
        else:
            result = {}
        out.write(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}).encode() + b"\n")
        out.flush()


if __name__ == "__main__":
    main()
