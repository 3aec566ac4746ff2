// console-client.mjs WORKSPACE -- SERVER_CMD [ARGS...]
// The SDK Client driving server-filesystem through whatever SERVER_CMD is (for the console
// end-to-end test: `belay connect SOCKET`): a write, a read, an edit (so one turn has a text
// diff), and a call to a tool the server does not list (it declares nothing about its effect, so
// the turn is UNVERIFIED with a named cause: an absent contract is not a permissive one).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ListRootsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const argv = process.argv.slice(2);
const ws = argv[0];
const cmd = argv.slice(argv.indexOf("--") + 1);

const transport = new StdioClientTransport({ command: cmd[0], args: cmd.slice(1), stderr: "inherit" });
const client = new Client({ name: "belay-console-test", version: "1.0.0" }, { capabilities: { roots: { listChanged: true } } });
client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: `file://${ws}`, name: "work" }] }));
await client.connect(transport);
await client.listTools();
const call = (name, args) => client.callTool({ name, arguments: args });
const out = [];
out.push(await call("write_file", { path: `${ws}/hello.txt`, content: "hello world\nline two\n" }));
out.push(await call("read_text_file", { path: `${ws}/hello.txt` }));
out.push(await call("edit_file", { path: `${ws}/hello.txt`, edits: [{ oldText: "line two", newText: "line 2" }] }));
out.push(await call("describe_file", { path: `${ws}/hello.txt` }));
await client.close();
process.stdout.write(JSON.stringify(out) + "\n");
