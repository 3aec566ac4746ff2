// http-bench-client.mjs --n N --warm W URL...
// Added latency of belay's HTTP listener (docs/HTTP.md): one SDK Client (Streamable HTTP)
// per URL — the server directly, and the same server through `belay proxy --http` — each
// sending W untimed and then N timed sequential tools/call requests of `echo`, the clients
// taking turns call by call so that both see the same machine. Prints one JSON line per URL
// in the order given: {"url", "n", "median_us", "p99_us"}. A URL "stdio:[COMMAND, ARGS...]" (a
// JSON array) is a stdio server the client starts (StdioClientTransport): bench_http measures
// the stdio figures (the server directly, and through `belay proxy --`) in the same run.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const argv = process.argv.slice(2);
const o = { "--n": "2000", "--warm": "200" };
const urls = [];
for (let i = 0; i < argv.length; i++) {
  if (argv[i] in o) o[argv[i]] = argv[++i];
  else urls.push(argv[i]);
}
const n = Number(o["--n"]), warm = Number(o["--warm"]);
const clients = [];
for (const u of urls) {
  const c = new Client({ name: "belay-http-bench", version: "1.0.0" }, { capabilities: {} });
  let t;
  if (u.startsWith("stdio:")) {
    const [command, ...args] = JSON.parse(u.slice(6));
    t = new StdioClientTransport({ command, args, stderr: "ignore" });
  } else {
    t = new StreamableHTTPClientTransport(new URL(u));
  }
  await c.connect(t);
  clients.push({ u, c, t: [] });
}
for (let i = 0; i < warm + n; i++) {
  for (const k of clients) {
    const t0 = process.hrtime.bigint();
    const r = await k.c.callTool({ name: "echo", arguments: { message: "bench" } });
    const dt = Number(process.hrtime.bigint() - t0) / 1000;
    if (r.isError) throw new Error("call failed: " + JSON.stringify(r));
    if (i >= warm) k.t.push(dt);
  }
}
for (const k of clients) {
  await k.c.close();
  k.t.sort((a, b) => a - b);
  process.stdout.write(JSON.stringify({ url: k.u, n, median_us: Math.round(k.t[Math.floor(n / 2)]), p99_us: Math.round(k.t[Math.floor(n * 0.99)]) }) + "\n");
}
