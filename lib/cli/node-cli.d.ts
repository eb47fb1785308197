// The few Node APIs the command uses beyond those lib/hosts/node.d.ts declares; these
// declarations merge with that file's (ambient modules and global interfaces merge).

declare module "node:fs" {
  export function mkdtempSync(prefix: string): string;
  export function rmSync(path: string, options?: { recursive?: boolean; force?: boolean }): void;
}

declare module "node:os" {
  export function tmpdir(): string;
}

declare module "node:path" {
  export function basename(path: string): string;
}

declare module "node:url" {
  export function pathToFileURL(path: string): URL;
}
