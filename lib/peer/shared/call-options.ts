// The options of one outgoing request, on either side: a Client's calls and a server
// handler's requests to its client (ctx.elicit, ctx.createMessage, ctx.listRoots) take the
// same timeouts, abort signal and progress callback. Types only.

import type { AbortSignalLike } from "./signal.js";

export interface ProgressInfo {
  progress: number;
  total: number | undefined;
  message: string | undefined;
}

export interface CallOptions {
  /** Inactivity timeout in ms (default: the client's defaultTimeoutMs). Infinity: none. */
  timeoutMs?: number;
  /** Progress pushes the inactivity timeout back by timeoutMs. A progress token is then always attached. */
  resetTimeoutOnProgress?: boolean;
  /** A hard cap in ms from the moment of sending; never pushed back. */
  maxTotalMs?: number;
  /** Aborting sends notifications/cancelled and rejects with RequestAbortedError. */
  signal?: AbortSignalLike;
  /** Progress callback; attaches a progress token. */
  onProgress?: (progress: ProgressInfo) => void;
}
