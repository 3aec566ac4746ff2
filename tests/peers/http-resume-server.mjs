// http-resume-server.mjs -- PORT
// A Streamable HTTP server made of the SDK's own parts (McpServer, StreamableHTTPServerTransport
// and the in-memory event store of the SDK's examples, whose replay works — server-everything
// 2026.8.31's does not: docs/HTTP.md), as the SDK's ssePollingExample.js is, on a port of the
// test's choosing. Its one tool, `count` {n, cut}, sends n progress notifications on the
// call's own event stream, closes that stream (closeSSEStream, SEP-1699) after the cut-th, and
// goes on: the rest are stored and replayed when the client resumes with Last-Event-ID.
import { randomUUID } from "node:crypto";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { createMcpExpressApp } from "@modelcontextprotocol/sdk/server/express.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { InMemoryEventStore } from "@modelcontextprotocol/sdk/examples/shared/inMemoryEventStore.js";
import { z } from "zod";

const port = Number(process.argv[2]);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const getServer = () => {
  const server = new McpServer({ name: "belay-resume-server", version: "1.0.0" });
  server.tool("count", "progress 1..n, the stream cut after `cut`", { n: z.number(), cut: z.number() },
    async ({ n, cut }, extra) => {
      for (let i = 1; i <= n; i++) {
        await extra.sendNotification({ method: "notifications/progress",
          params: { progressToken: extra._meta?.progressToken, progress: i, total: n } });
        if (i === cut) {
          extra.closeSSEStream?.();
          await sleep(300); // the rest while the client is away
        } else {
          await sleep(20);
        }
      }
      return { content: [{ type: "text", text: `counted to ${n}` }] };
    });
  return server;
};
const app = createMcpExpressApp();
const eventStore = new InMemoryEventStore();
const sessions = new Map();
app.all("/mcp", async (req, res) => {
  const sid = req.headers["mcp-session-id"];
  if (sid && sessions.has(sid)) return sessions.get(sid).handleRequest(req, res, req.body);
  if (sid || !isInitializeRequest(req.body)) {
    res.status(400).json({ jsonrpc: "2.0", error: { code: -32000, message: "no session" }, id: null });
    return;
  }
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), eventStore,
    retryInterval: 100, onsessioninitialized: (id) => sessions.set(id, transport) });
  transport.onclose = () => sessions.delete(transport.sessionId);
  await getServer().connect(transport);
  await transport.handleRequest(req, res, req.body);
});
app.listen(port, "127.0.0.1", () => console.log(`listening on ${port}`));
