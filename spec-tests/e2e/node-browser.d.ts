// The few Node APIs spec-tests/e2e/browser-cors.test.ts uses beyond those lib/hosts/node.d.ts
// and lib/cli/node-cli.d.ts declare; these declarations merge with theirs.

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
