// The Node APIs the conformance runner and the host adapter use beyond lib/hosts/node.d.ts
// (these declarations merge with that file's ambient modules).

declare module "node:child_process" {
  export interface ChildProcess {
    /** stdin, stdout, stderr, then the extra pipes asked for (fd 3: the host-adapter channel). */
    readonly stdio: readonly ((NodeReadable & NodeWritable) | null)[];
  }
}

declare module "node:fs" {
  export function createReadStream(path: string | null, options: { fd: number; autoClose?: boolean }): NodeReadable;
  export function writeSync(fd: number, data: string): number;
}
