// Imports a package installed outside this project (never a dependency of it), for the server
// scripts of the cross-implementation table (spec-tests/tools/conform-table.ts): the table passes
// the node_modules directory it found the package in as the script's first argument. Only the
// package's main entry is resolved ("exports" ".": import or default, else "main").

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

/** The node_modules directory the script was given (its first argument). */
export function modulesDirectory() {
  const dir = process.argv[2];
  if (dir === undefined || dir === "") {
    process.stderr.write("usage: node <script> <node_modules directory holding the package>\n");
    process.exit(2);
  }
  return dir;
}

/** import() of package `name` as installed under `modules`. */
export async function importFrom(modules, name) {
  const dir = join(modules, ...name.split("/"));
  const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  const dot = typeof manifest.exports === "object" && manifest.exports !== null ? (manifest.exports["."] ?? manifest.exports) : undefined;
  const entry =
    typeof dot === "string" ? dot : typeof dot === "object" && dot !== null ? (dot.import ?? dot.default) : (manifest.main ?? "index.js");
  if (typeof entry !== "string") throw new Error(`${name}: no importable entry in its package.json`);
  return import(pathToFileURL(join(dir, entry)).href);
}
