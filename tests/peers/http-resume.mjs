// http-resume.mjs -- URL N CUT
// The SDK client (StreamableHTTPClientTransport) calls `count` of http-resume-server.mjs: the
// server cuts the call's event stream after CUT progress notifications and the client resumes
// by itself (a GET with Last-Event-ID, after the stream's retry interval), getting the rest
// and the result. Prints one JSON document: the progress values in the order it got them,
// the result, and every JSON-RPC message it sent and received.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [url, nArg, cutArg] = process.argv.slice(2);
const transport = new StreamableHTTPClientTransport(new URL(url),
  { reconnectionOptions: { initialReconnectionDelay: 100, maxReconnectionDelay: 1000, reconnectionDelayGrowFactor: 1.5, maxRetries: 5 } });
const sent = [], received = [];
const send = transport.send.bind(transport);
transport.send = (m, o) => { sent.push(m); return send(m, o); };
let handler;
Object.defineProperty(transport, "onmessage", {
  get() { return handler && ((m, extra) => { received.push(m); return handler(m, extra); }); },
  set(h) { handler = h; },
});
const client = new Client({ name: "belay-http-resume", version: "1.0.0" });
await client.connect(transport);
const progress = [];
const result = await client.callTool({ name: "count", arguments: { n: Number(nArg), cut: Number(cutArg) } }, undefined,
  { onprogress: (p) => progress.push(p.progress), timeout: 60000 });
await transport.terminateSession();
await client.close();
process.stdout.write(JSON.stringify({ progress, result, sent, received }) + "\n");
process.exit(0);
