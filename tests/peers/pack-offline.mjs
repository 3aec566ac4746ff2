// pack-offline.mjs PACKAGE OUT.tgz [--marker PATH]
// A registry-free tarball of an installed npm peer (tests/peers/node_modules/PACKAGE): the
// package as installed, with every package it depends on bundled inside it
// (bundleDependencies), so that `npm install OUT.tgz --offline` needs no registry at all.
// Type declarations, source maps and docs are left out (fewer files to unpack). With
// --marker, the package gets preinstall/install/postinstall scripts that create PATH: a
// test then proves that no install script ever ran. Made with tar, as `npm pack` would.
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { dirname, join } from "node:path";

const argv = process.argv.slice(2);
const [name, out] = argv;
const marker = argv.includes("--marker") ? argv[argv.indexOf("--marker") + 1] : null;
const root = new URL("./node_modules/", import.meta.url).pathname;
const work = `${out}.work`;
rmSync(work, { recursive: true, force: true });
const pkg = join(work, "package");
const skip = (src) => !/\.(d\.ts|d\.cts|d\.mts|map|md)$/.test(src);
cpSync(join(root, name), pkg, { recursive: true, dereference: true, filter: skip });

const manifest = (n) => JSON.parse(readFileSync(join(root, n, "package.json"), "utf8"));
const seen = new Set();
const queue = Object.keys(manifest(name).dependencies ?? {});
while (queue.length) {
  const n = queue.shift();
  if (seen.has(n) || !existsSync(join(root, n, "package.json"))) continue;
  seen.add(n);
  mkdirSync(dirname(join(pkg, "node_modules", n)), { recursive: true });
  cpSync(join(root, n), join(pkg, "node_modules", n), { recursive: true, dereference: true, filter: skip });
  const m = manifest(n);
  queue.push(...Object.keys({ ...m.dependencies, ...m.optionalDependencies }));
}

const pj = JSON.parse(readFileSync(join(pkg, "package.json"), "utf8"));
pj.bundleDependencies = Object.keys(pj.dependencies ?? {});
delete pj.devDependencies;
pj.scripts = marker
  ? Object.fromEntries(["preinstall", "install", "postinstall"].map((s) => [s, `echo ${s} >> ${marker}`]))
  : {};
writeFileSync(join(pkg, "package.json"), JSON.stringify(pj, null, 2));
execFileSync("tar", ["czf", out, "-C", work, "package"]);
rmSync(work, { recursive: true, force: true });
process.stdout.write(`${out} (${seen.size} bundled dependencies)\n`);
