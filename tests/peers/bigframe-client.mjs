// bigframe-client.mjs WORKSPACE -- SERVER_CMD [ARGS...]
// Drives server-filesystem with the real SDK Client over stdio around frames larger than a
// small recording cap (the test runs belay proxy --frame-cap): a read of WORKSPACE/big.txt
// whose reply is over the cap (the SDK writes "id" after "result"), a write whose request is
// over it, and ordinary turns before and after. Prints one JSON document of what it saw.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const argv = process.argv.slice(2);
const ws = argv[0];
const cmd = argv.slice(argv.indexOf("--") + 1);

const transport = new StdioClientTransport({ command: cmd[0], args: cmd.slice(1), stderr: "inherit" });
const client = new Client({ name: "belay-test-client", version: "1.0.0" }, { capabilities: {} });
await client.connect(transport);
await client.listTools();
const call = async (name, args) => {
  const r = await client.callTool({ name, arguments: args });
  const text = (r.content || []).map((c) => c.text || "").join("");
  return { name, isError: !!r.isError, length: text.length, head: text.slice(0, 40) };
};
const out = [];
out.push(await call("write_file", { path: `${ws}/before.txt`, content: "before\n" }));
out.push(await call("read_text_file", { path: `${ws}/big.txt` }));
out.push(await call("write_file", { path: `${ws}/a.txt`, content: "a\n" }));
out.push(await call("read_text_file", { path: `${ws}/a.txt` }));
out.push(await call("write_file", { path: `${ws}/wide.txt`, content: "w".repeat(100000) }));
out.push(await call("write_file", { path: `${ws}/b.txt`, content: "b\n" }));
out.push(await call("read_text_file", { path: `${ws}/b.txt` }));
out.push(await call("list_directory", { path: ws }));
await client.close();
process.stdout.write(JSON.stringify(out) + "\n");
