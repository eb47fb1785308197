// The few Node APIs the test command (spec-tests/run.ts) and the browser test
// (spec-tests/e2e/browser-cors.test.ts) use beyond those lib/hosts/node.d.ts and
// lib/cli/node-cli.d.ts declare; these declarations merge with theirs.

declare module "node:child_process" {
  export interface SpawnOptions {
    /** A process group of its own, so the browser and every process it starts are killed together. */
    detached?: boolean;
  }
}

declare module "node:path" {
  export const delimiter: string;
  export const sep: string;
}

declare module "node:os" {
  export function availableParallelism(): number;
}

interface NodeProcess {
  readonly versions: { readonly node: string };
}
