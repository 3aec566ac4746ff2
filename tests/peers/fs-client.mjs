// fs-client.mjs WORKSPACE -- SERVER_CMD [ARGS...]
// Drives a filesystem MCP server with the real SDK Client over stdio and prints one JSON
// document of everything it saw, so a test can compare a direct run with a run through belay.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ListRootsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const argv = process.argv.slice(2);
const ws = argv[0];
const cmd = argv.slice(argv.indexOf("--") + 1);

const transport = new StdioClientTransport({ command: cmd[0], args: cmd.slice(1), stderr: "inherit" });
const client = new Client({ name: "belay-test-client", version: "1.0.0" }, { capabilities: { roots: { listChanged: true } } });
client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: `file://${ws}`, name: "work" }] }));

const out = {};
await client.connect(transport);
out.server = client.getServerVersion();
const tools = await client.listTools();
out.tools = tools.tools.map((t) => ({ name: t.name, annotations: t.annotations })).sort((a, b) => a.name.localeCompare(b.name));

const call = (name, args) => client.callTool({ name, arguments: args });
out.write = await call("write_file", { path: `${ws}/hello.txt`, content: "hello world\nline two\n" });
out.read = await call("read_text_file", { path: `${ws}/hello.txt` });
out.edit_dry = await call("edit_file", { path: `${ws}/hello.txt`, edits: [{ oldText: "line two", newText: "line 2" }], dryRun: true });
out.edit = await call("edit_file", { path: `${ws}/hello.txt`, edits: [{ oldText: "line two", newText: "line 2" }] });
out.mkdir = await call("create_directory", { path: `${ws}/sub` });
out.write2 = await call("write_file", { path: `${ws}/sub/b.txt`, content: "b\n" });
out.list = await call("list_directory", { path: ws });
out.outside = await call("read_text_file", { path: "/etc/hostname" });
// Pipelined: three calls written back to back; the server may answer out of order.
out.pipelined = await Promise.all([
  call("read_text_file", { path: `${ws}/hello.txt` }),
  call("read_text_file", { path: `${ws}/sub/b.txt` }),
  call("list_directory", { path: `${ws}/sub` }),
]);
out.move = await call("move_file", { source: `${ws}/sub/b.txt`, destination: `${ws}/sub/c.txt` });
out.tree = await call("directory_tree", { path: ws });
await client.close();
process.stdout.write(JSON.stringify(out, null, 1) + "\n");
