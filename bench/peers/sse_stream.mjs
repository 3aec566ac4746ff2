// sse_stream.mjs serve | fetch ...
// bench_http's event-stream throughput (plain Node, no SDK), both ends:
//   sse_stream.mjs serve           an MCP-shaped HTTP server on a free loopback port (printed
//                                  as one line "PORT"): a POST is answered with an event
//                                  stream of MIB MiB of 64 KiB notifications/message events
//                                  (MIB from the body's params.mib, default 64), then the
//                                  result event, then the end of the stream;
//   sse_stream.mjs fetch MIB URL...  POSTs to each URL in turn, reads each stream to its end
//                                  and prints one JSON line per URL: {"url", "mib", "ms",
//                                  "mib_s", "events"}.
// A server of our own: no real MCP server streams this much.
import http from "node:http";

const [mode, ...rest] = process.argv.slice(2);
const chunk = "x".repeat(64 * 1024 - 120);
if (mode === "serve") {
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (d) => { body += d; });
    req.on("end", () => {
      let mib = 64, id = 1;
      try { const m = JSON.parse(body); mib = m.params?.mib ?? 64; id = m.id ?? 1; } catch {}
      res.writeHead(200, { "Content-Type": "text/event-stream", "Cache-Control": "no-cache" });
      let left = mib * 16, n = 0;
      const more = () => {
        while (left > 0) {
          left--;
          const ev = `event: message\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{"n":${n++},"data":"${chunk}"}}\n\n`;
          if (!res.write(ev)) { res.once("drain", more); return; }
        }
        res.end(`event: message\ndata: {"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"events":${n}}}\n\n`);
      };
      more();
    });
  });
  server.listen(0, "127.0.0.1", () => process.stdout.write(`${server.address().port}\n`));
  for (const s of ["SIGTERM", "SIGINT"]) process.on(s, () => process.exit(0));
} else {
  const mib = Number(rest[0]);
  for (const url of rest.slice(1)) {
    const body = JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "stream", arguments: {}, mib } });
    const t0 = process.hrtime.bigint();
    const res = await fetch(url, { method: "POST", body,
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" } });
    let bytes = 0, events = 0, last = 0;
    for await (const b of res.body) {
      bytes += b.length;
      for (let i = 0; i < b.length; i++) {
        if (b[i] === 10 && last === 10) events++;
        last = b[i];
      }
    }
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    process.stdout.write(JSON.stringify({ url, mib: bytes / 1048576, ms: Math.round(ms), mib_s: Math.round(bytes / 1048576 / (ms / 1000)), events }) + "\n");
  }
}
