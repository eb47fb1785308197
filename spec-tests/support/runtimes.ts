// The other JavaScript runtimes the tests run the project under: the pinned dev dependencies
// bun and deno (their npm packages ship the binaries, linked in node_modules/.bin) and
// workerd. A runtime that cannot run on this machine is reported with the reason, for the
// test to skip with. Not a test file itself.

import { existsSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../../", import.meta.url));

/** The path of a dev dependency's binary. */
export function runtimeBinary(name: string): string {
  return join(root, "node_modules", ".bin", name);
}

/** Why the runtime's binary does not run here; undefined when it does. */
export function runtimeMissing(name: string): string | undefined {
  const bin = runtimeBinary(name);
  if (!existsSync(bin)) return `${name} is not installed (npm ci installs the pinned dev dependency)`;
  const probe = spawnSync(bin, ["--version"], { encoding: "utf8", timeout: 20_000 });
  return probe.status === 0
    ? undefined
    : `${name} --version failed here (status ${String(probe.status)}): ${probe.stderr || String(probe.error)}`;
}
