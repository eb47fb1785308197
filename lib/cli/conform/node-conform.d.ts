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

// The client role (client-target.ts): a loopback listener the client's relay connects back to.
declare module "node:net" {
  export interface Server {
    listen(port: number, host: string, callback: () => void): this;
    address(): { port: number } | string | null;
    close(callback?: () => void): this;
    on(event: "connection", listener: (socket: NodeSocket) => void): this;
    once(event: "error", listener: (error: Error) => void): this;
  }
  export function createServer(): Server;
}
