// everything-client.mjs -- SERVER_CMD [ARGS...]
// Drives @modelcontextprotocol/server-everything with the SDK Client: progress
// notifications, a server-to-client sampling request and roots, a cancelled call, an error
// result. Prints one JSON document of the deterministic parts of what it saw.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { CreateMessageRequestSchema, ListRootsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const argv = process.argv.slice(2);
const cmd = argv.slice(argv.indexOf("--") + 1);
const transport = new StdioClientTransport({ command: cmd[0], args: cmd.slice(1), stderr: "ignore" });
const client = new Client({ name: "belay-test-client", version: "1.0.0" },
  { capabilities: { roots: { listChanged: true }, sampling: {} } });
let samplingRequests = 0, rootsRequests = 0;
client.setRequestHandler(CreateMessageRequestSchema, async (req) => {
  samplingRequests++;
  return { model: "stub-model", role: "assistant", content: { type: "text", text: `echo: ${req.params.messages.length} message(s)` } };
});
client.setRequestHandler(ListRootsRequestSchema, async () => { rootsRequests++; return { roots: [{ uri: "file:///tmp", name: "tmp" }] }; });

const out = {};
await client.connect(transport);
const tools = await client.listTools();
out.tools = tools.tools.map((t) => t.name).sort();
out.echo = await client.callTool({ name: "echo", arguments: { message: "hi through belay" } });
out.sum = await client.callTool({ name: "get-sum", arguments: { a: 2, b: 40 } });
const progress = [];
out.long = await client.callTool({ name: "trigger-long-running-operation", arguments: { duration: 1, steps: 4 } },
  undefined, { onprogress: (p) => progress.push([p.progress, p.total]) });
// How many progress notifications arrive before the result varies with timing; their
// order and range do not.
out.progress_ok = progress.length >= 3 && progress.every(([p, t], i) => t === 4 && p === i + 1);
out.sampling = await client.callTool({ name: "trigger-sampling-request", arguments: { prompt: "say hi", maxTokens: 10 } });
out.bad_args = await client.callTool({ name: "get-sum", arguments: { a: "x" } });
const ac = new AbortController();
const cancelled = client.callTool({ name: "trigger-long-running-operation", arguments: { duration: 3, steps: 3 } },
  undefined, { signal: ac.signal });
setTimeout(() => ac.abort("test-cancel"), 200);
try { await cancelled; out.cancelled = "completed?!"; } catch (e) { out.cancelled = "aborted"; }
out.after_cancel = await client.callTool({ name: "echo", arguments: { message: "still alive" } });
out.samplingRequests = samplingRequests;
await client.close();
process.stdout.write(JSON.stringify(out, null, 1) + "\n");
