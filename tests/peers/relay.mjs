// relay.mjs OUTDIR -- CMD [ARGS...]
// An independent, byte-transparent witness: forwards stdin/stdout to CMD unchanged and
// appends every byte it saw to OUTDIR/c2s.bin and OUTDIR/s2c.bin. Tests place it between
// belay and a real server to check that the trace holds exactly what crossed the wire.
import { spawn } from "node:child_process";
import { appendFileSync, writeFileSync } from "node:fs";

const argv = process.argv.slice(2);
const dir = argv[0];
const cmd = argv.slice(argv.indexOf("--") + 1);
writeFileSync(`${dir}/c2s.bin`, "");
writeFileSync(`${dir}/s2c.bin`, "");
const child = spawn(cmd[0], cmd.slice(1), { stdio: ["pipe", "pipe", "inherit"] });
process.stdin.on("data", (b) => { appendFileSync(`${dir}/c2s.bin`, b); child.stdin.write(b); });
process.stdin.on("end", () => child.stdin.end());
child.stdout.on("data", (b) => { appendFileSync(`${dir}/s2c.bin`, b); process.stdout.write(b); });
child.on("exit", (code, sig) => process.exit(sig ? 128 : code ?? 0));
for (const s of ["SIGTERM", "SIGINT"]) process.on(s, () => child.kill(s));
