// `mcp-engine serve --http HOST:PORT --redis URL`: what makes this process one node of
// several serving as one server. Everything shared lives in Redis (mcp-engine/stores/redis,
// through the CLI's own small client, lib/hosts/redis-resp.ts): sessions, stream events, the
// message bus, tasks, and the keys that must be the same on every node (requestState
// sealing, pagination cursors). The clock is the wall clock (Date.now), the same on every
// node: task times and expiry are compared across processes.
//
// Invariants: a Redis that cannot be reached at start is an error (exit 2), one lost later
// makes requests fail with an internal error until it returns (the client reconnects).

import type { HttpServerOptions } from "../http-server/options.js";
import type { TaskStore } from "../peer/server/task-store.js";
import { RespClient } from "../hosts/redis-resp.js";
import { RedisTaskStore, redisHttpStores, sharedSecret } from "../stores/redis.js";

export interface ClusterNode {
  readonly paginationSecret: Uint8Array;
  readonly requestStateSecret: Uint8Array;
  readonly taskStore: TaskStore;
  /** What serveHttp / the fetch handler take to share sessions. */
  readonly http: Pick<HttpServerOptions, "store" | "eventStore" | "bus" | "timers" | "onError">;
  close(): Promise<void>;
}

/** Connects to Redis and builds the shared stores; rejects when Redis cannot be reached. */
export async function joinCluster(url: string, report: (text: string) => void): Promise<ClusterNode> {
  let lastReport = "";
  const onError = (error: unknown): void => {
    const text = error instanceof Error ? error.message : String(error);
    // A Redis that is away fails every request: say so once, not once per request.
    if (text !== lastReport) report(`${text}\n`);
    lastReport = text;
  };
  const client = new RespClient({ url, onError });
  await client.connect();
  const [paginationSecret, requestStateSecret] = await Promise.all([
    sharedSecret(client, "pagination"),
    sharedSecret(client, "requestState"),
  ]);
  const stores = redisHttpStores(client);
  return {
    paginationSecret,
    requestStateSecret,
    taskStore: new RedisTaskStore(client),
    http: { ...stores, onError },
    close: () => client.close(),
  };
}
