#!/usr/bin/env python3
"""rpc_client.py - the benchmarks' Python MCP client (plain stdlib, newline JSON-RPC on
stdio), as an interpreted agent drives a tool server.

  rpc_client.py --n N --warm W --tool NAME [--args JSON] -- SERVER_CMD [ARGS...]

Starts the server (stderr inherited), initializes, sends W untimed then N timed
sequential tools/call requests, each timed from just before its write to just after its
reply was read and parsed, and prints one JSON line: {"n", "median_us", "p98_us", "p99_us"}."""
import json
import subprocess
import sys
import time


def main():
    argv = sys.argv[1:]
    cmd = argv[argv.index("--") + 1:]
    opts = argv[:argv.index("--")]
    o = {"--n": "3000", "--warm": "300", "--tool": "echo", "--args": "{}"}
    for i in range(0, len(opts), 2):
        o[opts[i]] = opts[i + 1]
    n, warm, tool, args = int(o["--n"]), int(o["--warm"]), o["--tool"], json.loads(o["--args"])
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
    rd = p.stdout

    def rpc(i, method, params):
        p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": i, "method": method, "params": params}).encode() + b"\n")
        while True:
            line = rd.readline()
            if not line:
                sys.exit("rpc_client: the server closed its output")
            m = json.loads(line)
            if m.get("id") == i and "method" not in m:
                return m

    rpc(0, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                          "clientInfo": {"name": "bench-rpc-client-py", "version": "1"}})
    p.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
    t = []
    for i in range(1, warm + n + 1):
        t0 = time.perf_counter_ns()
        r = rpc(i, "tools/call", {"name": tool, "arguments": args})
        dt = time.perf_counter_ns() - t0
        if "result" not in r:
            sys.exit("rpc_client: call failed: %s" % r)
        if i > warm:
            t.append(dt / 1000.0)
    p.stdin.close()
    p.wait()
    t.sort()
    print(json.dumps({"n": n, "median_us": t[n // 2], "p98_us": t[int(n * 0.98)], "p99_us": t[int(n * 0.99)]}))


if __name__ == "__main__":
    main()
