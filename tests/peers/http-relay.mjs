// http-relay.mjs UPSTREAM_URL
// The relay floor of bench_http (bench/bench_http.c): an HTTP process that only forwards -
// every request to UPSTREAM_URL's origin, the same path, method, headers and body, the answer
// streamed back as it comes - and records nothing: the least any HTTP proxy process adds.
// Listens on a free loopback port and prints it as one line "PORT" on stdout.
import http from "node:http";

const up = new URL(process.argv[2]);
const agent = new http.Agent({ keepAlive: true });
const server = http.createServer((req, res) => {
  const headers = { ...req.headers, host: up.host };
  const out = http.request({ host: up.hostname, port: up.port, path: req.url, method: req.method, headers, agent },
    (r) => { res.writeHead(r.statusCode, r.headers); r.pipe(res); });
  out.on("error", () => { res.writeHead(502); res.end(); });
  req.pipe(out);
});
server.listen(0, "127.0.0.1", () => process.stdout.write(`${server.address().port}\n`));
for (const s of ["SIGTERM", "SIGINT"]) process.on(s, () => process.exit(0));
