// lifecycle-client.mjs MODE [--trace-dir DIR] [--fsize BYTES] [--duration S] [--cwd DIR] [--ws DIR] [--write PATH]
//                      [--env K=V]... -- SERVER_CMD [ARGS...]
// The SDK Client against a server that cannot serve it, started the way agents start servers
// (the SDK's minimal environment). Prints one JSON document of what the client saw; every
// error is {code, message, data} as the SDK hands it over. Each request has a 30 s timeout
// (--timeout MS),
// so a server belay leaves hanging shows up as the SDK's own timeout (-32001), not a hang.
//   start        connect (initialize) and, if that works, list the tools
//   mid-call     connect, start trigger-long-running-operation (server-everything), and at its
//                first progress notification SIGKILL the server (its pid from the trace's
//                server record in --trace-dir; the operation lasts --duration seconds,
//                default 30); then try one more call
//   record-fail  connect, set belay's file-size limit to --fsize bytes (prlimit on the proxy
//                only, as a hostile server could), then echo 20 KB messages until a call
//                fails; then one more call and a ping
//   calls        connect, list the tools and call echo once (everything is expected to work);
//                with --write PATH the call also asks the server to write PATH
//   fs           connect to server-filesystem and, in --ws DIR, write a file and read it back
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

const argv = process.argv.slice(2);
const mode = argv[0];
const cut = argv.indexOf("--");
const cmd = argv.slice(cut + 1);
const opt = (name) => {
  const i = argv.indexOf(name);
  return i > 0 && i < cut ? argv[i + 1] : undefined;
};
const env = {};
// The tests' scratch cache (BELAY_CACHE_DIR, set per test) is the one variable passed on
// beyond the SDK's minimal environment, so that a contained run never writes the account's
// own ~/.cache/belay; it has no bearing on what the tests check.
if (process.env.BELAY_CACHE_DIR) env.BELAY_CACHE_DIR = process.env.BELAY_CACHE_DIR;
for (let i = 1; i < cut; i++) if (argv[i] === "--env") { const [k, ...v] = argv[i + 1].split("="); env[k] = v.join("="); }

const err = (e) => ({ code: e.code ?? null, message: String(e.message ?? e), data: e.data ?? null });
const timeout = { timeout: Number(opt("--timeout") ?? 30000) };
const out = { mode };
const transport = new StdioClientTransport({ command: cmd[0], args: cmd.slice(1), stderr: "inherit", cwd: opt("--cwd"), env });
const client = new Client({ name: "belay-lifecycle-test", version: "1.0.0" }, { capabilities: {} });

function serverPid(dir) {
  for (let tries = 0; tries < 200; tries++) {
    for (const f of readdirSync(dir).filter((n) => n.endsWith(".jsonl"))) {
      for (const line of readFileSync(`${dir}/${f}`, "utf8").split("\n")) {
        if (!line) continue;
        const r = JSON.parse(line);
        if (r.kind === "server" && r.phase === "start") return r.pid;
      }
    }
    execFileSync("sleep", ["0.05"]);
  }
  throw new Error(`no server start record in ${dir}`);
}

// How the server command itself (belay) ends, for the test to check its exit status.
let exited;
const proxyExit = new Promise((resolve) => { exited = resolve; });
try {
  await client.connect(transport, timeout);
  out.connected = true;
} catch (e) {
  out.connected = false;
  out.connect_error = err(e);
}

if (out.connected && mode === "start") {
  out.tools = (await client.listTools(undefined, timeout)).tools.length;
} else if (out.connected && mode === "calls") {
  out.tools = (await client.listTools(undefined, timeout)).tools.length;
  const args = { message: "hi" };
  if (opt("--write")) args.write = opt("--write");
  out.echo = await client.callTool({ name: "echo", arguments: args }, undefined, timeout);
} else if (out.connected && mode === "fs") {
  const ws = opt("--ws");
  out.tools = (await client.listTools(undefined, timeout)).tools.length;
  out.write = await client.callTool({ name: "write_file", arguments: { path: `${ws}/hello.txt`, content: "hello\n" } }, undefined, timeout);
  out.read = await client.callTool({ name: "read_text_file", arguments: { path: `${ws}/hello.txt` } }, undefined, timeout);
} else if (out.connected && mode === "mid-call") {
  const pid = serverPid(opt("--trace-dir"));
  let killed = 0;
  try {
    out.call = await client.callTool(
      { name: "trigger-long-running-operation", arguments: { duration: Number(opt("--duration") ?? 30), steps: 10 } },
      undefined,
      { ...timeout, onprogress: () => { if (!killed) { killed = Date.now(); process.kill(pid, "SIGKILL"); } } },
    );
  } catch (e) {
    out.call_error = err(e);
    out.ms_from_kill_to_error = killed ? Date.now() - killed : null;
  }
  out.killed_pid = killed ? pid : null;
  try {
    out.after = await client.callTool({ name: "echo", arguments: { message: "again" } }, undefined, timeout);
  } catch (e) {
    out.after_error = err(e);
  }
} else if (out.connected && mode === "record-fail") {
  if (opt("--fsize")) execFileSync("prlimit", ["--pid", String(transport.pid), `--fsize=${opt("--fsize")}`]);
  out.ok_calls = 0;
  for (let i = 0; i < 100; i++) {
    try {
      await client.callTool({ name: "echo", arguments: { message: `${i}:` + "x".repeat(20000) } }, undefined, timeout);
      out.ok_calls++;
    } catch (e) {
      out.failed_call = i;
      out.call_error = err(e);
      break;
    }
  }
  try {
    out.after = await client.callTool({ name: "echo", arguments: { message: "after" } }, undefined, timeout);
  } catch (e) {
    out.after_error = err(e);
  }
  try {
    out.ping = await client.ping(timeout);
  } catch (e) {
    out.ping_error = err(e);
  }
}
// (The SDK keeps the child private; the tests pin the SDK version.)
const child = transport._process;
if (child && child.exitCode === null && child.signalCode === null) child.once("exit", (code, sig) => exited({ code, sig }));
else if (child) exited({ code: child.exitCode, sig: child.signalCode });
else exited({ code: null, sig: null });
await client.close();
out.proxy_exit = await proxyExit;
process.stdout.write(JSON.stringify(out) + "\n");
