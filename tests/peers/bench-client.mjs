// bench-client.mjs --n N --warm W --tool NAME [--args JSON] -- SERVER_CMD [ARGS...]
// The benchmarks' Node client (bench/bench_proxy.c): the real SDK Client over stdio, as an
// agent drives a tool server. Initializes, sends W untimed then N timed sequential
// tools/call requests (each timed around the SDK's callTool) and prints one JSON line:
// {"n", "median_us", "p98_us", "p99_us"}. The server's stderr is inherited.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const argv = process.argv.slice(2);
const sep = argv.indexOf("--");
const cmd = argv.slice(sep + 1);
const o = { "--n": "3000", "--warm": "300", "--tool": "list_allowed_directories", "--args": "{}" };
for (let i = 0; i + 1 < sep; i += 2) o[argv[i]] = argv[i + 1];
const n = Number(o["--n"]), warm = Number(o["--warm"]), args = JSON.parse(o["--args"]);

const transport = new StdioClientTransport({ command: cmd[0], args: cmd.slice(1), stderr: "inherit", env: process.env });
const client = new Client({ name: "bench-client-node", version: "1.0.0" }, { capabilities: {} });
await client.connect(transport);
const t = [];
for (let i = 0; i < warm + n; i++) {
  const t0 = process.hrtime.bigint();
  const r = await client.callTool({ name: o["--tool"], arguments: args });
  const dt = Number(process.hrtime.bigint() - t0) / 1000;
  if (r.isError) throw new Error("bench-client: call failed: " + JSON.stringify(r));
  if (i >= warm) t.push(dt);
}
await client.close();
t.sort((a, b) => a - b);
process.stdout.write(JSON.stringify({ n, median_us: t[Math.floor(n / 2)], p98_us: t[Math.floor(n * 0.98)], p99_us: t[Math.floor(n * 0.99)] }) + "\n");
