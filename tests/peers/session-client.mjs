// session-client.mjs SCRIPT.json -- SERVER_CMD [ARGS...]
// Plays one agent session against an MCP server with the real SDK Client, started the way
// agents start servers: the SDK's default environment (HOME, LOGNAME, PATH, SHELL, TERM, USER)
// plus the script's "env", and the script's "cwd" (the project directory) as the working
// directory. The client answers the server's own requests the way a real client would:
// roots/list with the script's roots, sampling/createMessage with a fixed text that depends on
// the request, elicitation/create by accepting with the script's content.
//
// SCRIPT: {"cwd": DIR, "env": {...}, "roots": [URI...], "calls": [{"tool", "arguments",
//          "parallel": N (optional: this call and the next N-1 are sent together)}...],
//          "elicit": {...content...}}
// Prints one JSON document: {"tools": [...], "results": [result or {"error": message}...]}.
import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport, getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import { CreateMessageRequestSchema, ElicitRequestSchema, ListRootsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const argv = process.argv.slice(2);
const script = JSON.parse(readFileSync(argv[0], "utf8"));
const cmd = argv.slice(argv.indexOf("--") + 1);
const transport = new StdioClientTransport({
  command: cmd[0], args: cmd.slice(1), cwd: script.cwd,
  env: { ...getDefaultEnvironment(), ...(script.env || {}) }, stderr: "inherit",
});
const client = new Client({ name: "belay-session-client", version: "1.0.0" },
  { capabilities: { roots: { listChanged: true }, sampling: {}, elicitation: {} } });
client.setRequestHandler(ListRootsRequestSchema, async () =>
  ({ roots: (script.roots || []).map((uri, i) => ({ uri, name: `root${i}` })) }));
client.setRequestHandler(CreateMessageRequestSchema, async (req) => {
  const m = req.params.messages.map((x) => x.content && x.content.text).join(" | ");
  return { model: "scripted-model", role: "assistant", stopReason: "endTurn",
    content: { type: "text", text: `scripted answer to: ${m}` } };
});
client.setRequestHandler(ElicitRequestSchema, async () =>
  ({ action: "accept", content: script.elicit || {} }));

const out = { results: [] };
await client.connect(transport);
out.tools = (await client.listTools()).tools.map((t) => t.name).sort();
const call = async (c) => {
  try { return await client.callTool({ name: c.tool, arguments: c.arguments || {} }); }
  catch (e) { return { error: String(e.message || e) }; }
};
const calls = script.calls || [];
for (let i = 0; i < calls.length;) {
  const n = Math.max(1, calls[i].parallel || 1);
  const batch = calls.slice(i, i + n);
  out.results.push(...await Promise.all(batch.map(call)));
  i += n;
}
await client.close();
process.stdout.write(JSON.stringify(out) + "\n");
