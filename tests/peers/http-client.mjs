// http-client.mjs -- MODE URL [AUTH [TAG [FLAGS]]]
// Drives an MCP server over HTTP with the SDK Client: MODE "streamable"
// (StreamableHTTPClientTransport) or "sse" (SSEClientTransport, the old transport). Lists
// the tools, calls several (a progress stream among them) and answers a sampling request;
// with AUTH, every request carries "Authorization: Bearer AUTH"; TAG goes into the echo
// call (to tell concurrent clients apart); FLAGS, comma-separated: "keep" leaves the session
// without a DELETE (for the idle timeout to end it), "pause" prints "PAUSED" after the first
// call and waits for a line on stdin before the rest (a test restarts belay meanwhile),
// "sumonly" ends the session after get-sum (the hold tests), "again" prints "SUM" and the get-sum result after that call, waits for a line on stdin (a
// test approves the refused call meanwhile) and calls it once more (out.sum2), "all"
// then calls every tool of
// server-everything as tests/peers/sessions/everything.json lists them (roots, elicitation,
// the toggles, an error result among them). Prints one JSON document:
// what it saw, and every JSON-RPC message it sent and received, in order (test_http_e2e
// checks the trace against them).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { CreateMessageRequestSchema, ElicitRequestSchema, ListRootsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { readFileSync } from "node:fs";

const [mode, url, auth, tag, flagList] = process.argv.slice(2);
const flags = (flagList || "").split(",");
const keep = flags.includes("keep") ? "keep" : "";
const script = JSON.parse(readFileSync(new URL("./sessions/everything.json", import.meta.url), "utf8")
  .replaceAll("@WS@", "/tmp/belay-http-client"));
const requestInit = auth ? { headers: { Authorization: `Bearer ${auth}` } } : undefined;
const transport = mode === "sse"
  ? new SSEClientTransport(new URL(url), { requestInit })
  : new StreamableHTTPClientTransport(new URL(url), { requestInit });
const sent = [], received = [];
const send = transport.send.bind(transport);
transport.send = (m, o) => { sent.push(m); return send(m, o); };
let handler;
Object.defineProperty(transport, "onmessage", {
  get() { return handler && ((m, extra) => { received.push(m); return handler(m, extra); }); },
  set(h) { handler = h; },
});
const client = new Client({ name: "belay-http-test-client", version: "1.0.0" },
  { capabilities: { sampling: {}, roots: { listChanged: true }, elicitation: {} } });
client.setRequestHandler(ListRootsRequestSchema, async () =>
  ({ roots: script.roots.map((uri, i) => ({ uri, name: `root${i}` })) }));
client.setRequestHandler(ElicitRequestSchema, async () => ({ action: "accept", content: script.elicit }));
client.setRequestHandler(CreateMessageRequestSchema, async (req) =>
  ({ model: "stub-model", role: "assistant", content: { type: "text", text: `echo: ${req.params.messages.length} message(s)` } }));

const out = {};
await client.connect(transport);
const tools = await client.listTools();
out.tools = tools.tools.map((t) => t.name).sort();
out.echo = await client.callTool({ name: "echo", arguments: { message: `hi through belay over http${tag ? " from " + tag : ""}` } });
if (flags.includes("pause")) {
  process.stdout.write("PAUSED\n");
  await new Promise((resolve) => process.stdin.once("data", resolve));
  process.stdin.pause();
}
out.sum = await client.callTool({ name: "get-sum", arguments: { a: 2, b: 40 } });
if (flags.includes("again")) {
  process.stdout.write("SUM " + JSON.stringify(out.sum) + "\n");
  await new Promise((resolve) => process.stdin.once("data", resolve));
  process.stdin.pause();
  out.sum2 = await client.callTool({ name: "get-sum", arguments: { a: 2, b: 40 } });
}
const rest = !flags.includes("sumonly");
const progress = [];
if (rest) out.long = await client.callTool({ name: "trigger-long-running-operation", arguments: { duration: 1, steps: 4 } },
  undefined, { onprogress: (p) => progress.push([p.progress, p.total]) });
out.progress = progress.length;
if (rest) out.sampling = await client.callTool({ name: "trigger-sampling-request", arguments: { prompt: "say hi", maxTokens: 10 } });
if (flags.includes("all")) {
  out.all = [];
  for (const c of script.calls) {
    try {
      const r = await client.callTool({ name: c.tool, arguments: c.arguments });
      out.all.push([c.tool, r.isError ? "error" : "ok"]);
    } catch (e) {
      // the SDK itself refuses some (a tool that needs task-based execution): nothing is sent
      out.all.push([c.tool, "refused: " + String(e.message || e)]);
    }
  }
}
if (mode !== "sse" && keep !== "keep") await transport.terminateSession();
await client.close();
out.sent = sent;
out.received = received;
process.stdout.write(JSON.stringify(out) + "\n");
process.exit(0); // stdin may still be open (pause)
