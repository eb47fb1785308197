// A minimal stdio server for bench/startup.ts, written as an application writes it: a peer
// Server with one tool over serveStdio, loaded from the package's entries (dist/package/, by
// URL: this file runs from dist/bench/), typed by the sources they are built from.

type Peer = typeof import("../lib/peer/index.js");
type Stdio = typeof import("../lib/hosts/stdio.js");

const { Server } = (await import(new URL("../package/peer/index.js", import.meta.url).href)) as Peer;
const { serveStdio } = (await import(new URL("../package/hosts/stdio.js", import.meta.url).href)) as Stdio;

const server = new Server({ info: { name: "minimal", version: "1.0.0" } });
server.tool("echo", { inputSchema: { type: "object", properties: { text: { type: "string" } } } }, (args) => ({
  content: [{ type: "text", text: String(args.text) }],
}));
serveStdio(server);
