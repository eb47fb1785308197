// The package as a consumer gets it from the registry: `npm pack` of the built project,
// unpacked into a fresh project. What it must hold (LICENSE, every exports target; no source
// maps, so none that dangles), and that the declarations of every entry in package.json "exports"
// compile under strict with skipLibCheck false: with ECMAScript libraries only, with
// @types/node, and with the DOM libraries under moduleResolution bundler.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { STRICT_CONSUMER, linkPackages, linkTypesNode, packIntoConsumer, typeCheck, type Packed } from "../support/package-harness.js";

let packed: Packed;

before(() => {
  packed = packIntoConsumer();
});

after(() => packed?.cleanup());

/** One `import * as` per "exports" entry, so an entry added later is checked without editing this test. */
function importEveryEntry(): string {
  const entries = Object.keys(packed.manifest.exports).map((entry, i) => ({
    name: `entry${i}`,
    specifier: entry === "." ? "mcp-engine" : `mcp-engine/${entry.slice(2)}`,
  }));
  return [
    ...entries.map((e) => `import * as ${e.name} from "${e.specifier}";`),
    `export const entries: object[] = [${entries.map((e) => e.name).join(", ")}];`,
    "",
  ].join("\n");
}

// Types and values from each entry, used the way the README shows them.
const USES = `import { Engine, SESSION_VERSIONS, MODERN_VERSIONS, type JsonRpcMessage, type ProtocolVersion } from "mcp-engine";
import { Client, Paginator, Server, McpError, RequestStateSealer, connectHttp, type HandlerContext, type ServerOptions } from "mcp-engine/peer";
import { serveStdio, StdioClient, type StdioClientOptions, type NodeChildProcess } from "mcp-engine/hosts/stdio";
import { HttpHost, serveHttp, connectHttpNode, type HttpServerOptions, type NodeConnectHttpOptions, type RunningHttpServer } from "mcp-engine/hosts/http";
import { createHttpHandler, MemoryEventStore, type EventStore, type HttpHandler, type HttpHandlerOptions } from "mcp-engine/http";

const versions: readonly ProtocolVersion[] = [...SESSION_VERSIONS, ...MODERN_VERSIONS];
const options: ServerOptions = { info: { name: "consumer", version: "1.0.0" }, paging: new Paginator({ pageSize: 10, secret: new Uint8Array(32) }), versions };
export const server = new Server(options);
server.tool("echo", { inputSchema: { type: "object" } }, (args: Record<string, unknown>, ctx: HandlerContext) => {
  if (ctx.signal.aborted) throw new McpError(-32602, "aborted");
  return { content: [{ type: "text", text: JSON.stringify(args) }] };
});
export const engine = new Engine({ role: "client", info: { name: "c", version: "1" }, capabilities: {} });
export const first: JsonRpcMessage | undefined = undefined;
export const stdioOptions: StdioClientOptions = { command: "node", args: ["server.js"], info: { name: "c", version: "1" } };
export const httpOptions: HttpServerOptions = { port: 0, eras: "both" };
export const nodeOptions: NodeConnectHttpOptions = { url: "http://127.0.0.1:3000/mcp", info: { name: "c", version: "1" } };
const eventStore: EventStore = new MemoryEventStore({ maxEventsPerStream: 100 });
const handlerOptions: HttpHandlerOptions = {
  cors: { origins: ["https://app.example"] },
  eventStore,
  authenticate: (request: Request) => (request === undefined ? undefined : { token: "t", scopes: [] }),
};
export const handler: HttpHandler = createHttpHandler(server, handlerOptions);
/** A Workers-style module: export default { fetch }. */
export const worker = { fetch: (request: Request): Promise<Response> => handler.fetch(request) };
export async function start(): Promise<void> {
  const running: RunningHttpServer = await serveHttp(server, httpOptions);
  const host: HttpHost = running.host;
  void host;
  serveStdio(server);
  const spawned = await StdioClient.spawn(stdioOptions);
  const child: NodeChildProcess = spawned.child;
  child.kill("SIGTERM");
  const connection = await connectHttpNode(nodeOptions);
  await connection.client.listTools();
  void connectHttp;
  void RequestStateSealer;
  await running.close();
}

// An extension's methods, typed by declaration merging on the published entry.
declare module "mcp-engine/peer" {
  interface ExtensionRequests {
    "com.example/echo/say": { params: { say: string }; result: { said: string } };
  }
}
export async function extension(client: Client): Promise<string> {
  // @ts-expect-error a spec method's params are typed: nme is no key of tools/call's params
  void client.request("tools/call", { nme: "x" });
  // @ts-expect-error so are an augmented extension method's
  void client.request("com.example/echo/say", { say: 1 });
  server.setRequestHandler("com.example/echo/say", (params) => ({ said: params.say }));
  return (await client.request("com.example/echo/say", { say: "hi" })).said;
}
`;

// With @types/node: Node's own objects fit what the hosts take.
const NODE_USES = `import { createServer } from "node:http";
import { Server } from "mcp-engine/peer";
import { HttpHost, LegacySseEndpoint, toNodeHandler } from "mcp-engine/hosts/http";
import { createHttpHandler } from "mcp-engine/http";

declare const server: Server;
export const middleware = createServer(toNodeHandler(createHttpHandler(server)));
export const answered: Promise<Response> = createHttpHandler(server).fetch(new Request("http://localhost/mcp"));
const host = new HttpHost(server, { legacySse: true });
export const direct = createServer(host.handle);
export const wrapped = createServer((req, res) => host.handle(req, res));
const legacy = new LegacySseEndpoint(server, {});
export const sse = createServer((_req, res) => legacy.open(res));
`;

test("the tarball carries LICENSE, README, package.json and every file that exports and bin name", () => {
  for (const required of ["LICENSE", "README.md", "package.json"])
    assert.ok(
      packed.files.includes(required),
      `${required} is not in the tarball: ${packed.files.filter((f) => !f.includes("/")).join(", ")}`,
    );
  assert.match(readFileSync(join(packed.packageDir, "LICENSE"), "utf8"), /^MIT License\n\nCopyright \(c\) \d{4} the mcp-engine authors\n/);
  const targets = [
    ...Object.values(packed.manifest.exports).flatMap((e) => [e.types, e.default]),
    ...Object.values(packed.manifest.bin ?? {}),
  ];
  assert.ok(targets.length >= 8, `exports and bin name ${targets.length} files`);
  for (const target of targets)
    assert.ok(packed.files.includes(target.replace(/^\.\//, "")), `${target} is named in package.json but not in the tarball`);
});

test("the tarball holds no source maps, and no JavaScript file in it names one (a map it does not hold would be a dangling link)", () => {
  assert.deepEqual(
    packed.files.filter((f) => f.endsWith(".map")),
    [],
  );
  const naming = packed.files.filter(
    (f) => f.endsWith(".js") && readFileSync(join(packed.packageDir, f), "utf8").includes("sourceMappingURL"),
  );
  assert.deepEqual(naming, []);
});

test("every export's declarations compile for a strict consumer without @types/node (ECMAScript libraries only)", () => {
  const result = typeCheck(
    packed.consumer,
    "bare",
    { ...STRICT_CONSUMER, lib: ["es2022"], types: [] },
    { "entries.ts": importEveryEntry(), "uses.ts": USES },
  );
  assert.equal(result.status, 0, `tsc reported:\n${result.output}`);
});

test("every export's declarations compile for a strict consumer with @types/node, and Node's request, response and server fit the hosts", () => {
  linkTypesNode(packed.consumer);
  const result = typeCheck(
    packed.consumer,
    "node",
    { ...STRICT_CONSUMER, lib: ["es2022"], types: ["node"] },
    { "entries.ts": importEveryEntry(), "uses.ts": USES, "node-uses.ts": NODE_USES },
  );
  assert.equal(result.status, 0, `tsc reported:\n${result.output}`);
});

test("every export's declarations compile for a strict browser-style consumer (DOM libraries, moduleResolution bundler)", () => {
  const result = typeCheck(
    packed.consumer,
    "dom",
    { ...STRICT_CONSUMER, module: "esnext", moduleResolution: "bundler", lib: ["es2022", "dom"], types: [] },
    { "entries.ts": importEveryEntry(), "uses.ts": USES },
  );
  assert.equal(result.status, 0, `tsc reported:\n${result.output}`);
});

// The user's node-redis client (v5/v6) is what mcp-engine/stores/redis takes, as it is: checked against redis's own declarations.
const REDIS_USES = `import { createClient } from "redis";
import { Server, serveTasks } from "mcp-engine/peer";
import { createHttpHandler } from "mcp-engine/http";
import { RedisTaskStore, redisHttpStores, sharedSecret, type RedisClientLike } from "mcp-engine/stores/redis";

const client = createClient({ url: "redis://127.0.0.1:6379", disableOfflineQueue: true });
export const shape: RedisClientLike = client;
const tasks = new RedisTaskStore(client);
export const server = new Server({ info: { name: "n", version: "1" }, tasks: serveTasks({ store: tasks, newTaskId: () => "id" }) });
export const handler = createHttpHandler(server, { ...redisHttpStores(client, { prefix: "app:" }) });
export const secret: Promise<Uint8Array> = sharedSecret(client, "requestState");
`;

test("mcp-engine/stores/redis takes a node-redis client as it is (redis's own declarations, strict, with @types/node)", () => {
  linkTypesNode(packed.consumer);
  linkPackages(packed.consumer, ["redis"]);
  const result = typeCheck(
    packed.consumer,
    "redis",
    { ...STRICT_CONSUMER, lib: ["es2022"], types: ["node"] },
    { "redis-uses.ts": REDIS_USES },
  );
  assert.equal(result.status, 0, `tsc reported:\n${result.output}`);
});
