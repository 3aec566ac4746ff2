// http-client.mjs -- MODE URL [AUTH [TAG [keep]]]
// Drives an MCP server over HTTP with the SDK Client: MODE "streamable"
// (StreamableHTTPClientTransport) or "sse" (SSEClientTransport, the old transport). Lists
// the tools, calls several (a progress stream among them) and answers a sampling request;
// with AUTH, every request carries "Authorization: Bearer AUTH"; TAG goes into the echo
// call (to tell concurrent clients apart); "keep" leaves the session without a DELETE (for
// the idle timeout to end it). Prints one JSON document:
// what it saw, and every JSON-RPC message it sent and received, in order (test_http_e2e
// checks the trace against them).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { CreateMessageRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const [mode, url, auth, tag, keep] = process.argv.slice(2);
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
const client = new Client({ name: "belay-http-test-client", version: "1.0.0" }, { capabilities: { sampling: {} } });
client.setRequestHandler(CreateMessageRequestSchema, async (req) =>
  ({ model: "stub-model", role: "assistant", content: { type: "text", text: `echo: ${req.params.messages.length} message(s)` } }));

const out = {};
await client.connect(transport);
const tools = await client.listTools();
out.tools = tools.tools.map((t) => t.name).sort();
out.echo = await client.callTool({ name: "echo", arguments: { message: `hi through belay over http${tag ? " from " + tag : ""}` } });
out.sum = await client.callTool({ name: "get-sum", arguments: { a: 2, b: 40 } });
const progress = [];
out.long = await client.callTool({ name: "trigger-long-running-operation", arguments: { duration: 1, steps: 4 } },
  undefined, { onprogress: (p) => progress.push([p.progress, p.total]) });
out.progress = progress.length;
out.sampling = await client.callTool({ name: "trigger-sampling-request", arguments: { prompt: "say hi", maxTokens: 10 } });
if (mode !== "sse" && keep !== "keep") await transport.terminateSession();
await client.close();
out.sent = sent;
out.received = received;
process.stdout.write(JSON.stringify(out) + "\n");
