// The roots the command offers: only the directories the user names with --root.
//
// A root is an absolute directory as a file:// URI (roots/list allows no other scheme, RULES.md RT-01), made
// with the runtime's own path-to-URL conversion so that spaces, "%", "#" and non-ASCII
// characters are percent-encoded as a server's URL parser expects.

import { statSync } from "node:fs";
import { basename, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { Root } from "../types/index.js";

/** Each directory, made absolute against `cwd`, as a root named after its last segment. */
export function rootsFor(dirs: readonly string[], cwd: string): Root[] {
  return dirs.map((dir) => {
    const path = resolve(cwd, dir);
    return { uri: pathToFileURL(path).href, name: basename(path) || path };
  });
}

/** Why one of `dirs` cannot be offered (each must be an existing directory), or undefined. */
export function rootProblem(dirs: readonly string[], cwd: string): string | undefined {
  for (const dir of dirs) {
    let directory = false;
    try {
      directory = statSync(resolve(cwd, dir)).isDirectory();
    } catch {
      directory = false;
    }
    if (!directory) return `--root ${JSON.stringify(dir)}: not a directory`;
  }
  return undefined;
}
