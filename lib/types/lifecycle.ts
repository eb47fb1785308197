// Lifecycle and utility requests: `initialize` (C→S) and `ping` (either side).
// The `notifications/initialized`, `notifications/cancelled` and `notifications/progress`
// params live in ./notifications.ts.

import type { BaseRequestParams, EmptyResult, Implementation, Result } from "./base.js";
import type { ClientCapabilities, ServerCapabilities } from "./capabilities.js";

/** Params of `initialize`. */
export interface InitializeRequestParams extends BaseRequestParams {
  /** The newest version the client supports (any string: the server must counter-offer, not fail). */
  protocolVersion: string;
  capabilities: ClientCapabilities;
  clientInfo: Implementation;
}

/** Result of `initialize`. */
export interface InitializeResult extends Result {
  /** The version the server wants to use; the client disconnects if it cannot speak it. */
  protocolVersion: string;
  capabilities: ServerCapabilities;
  serverInfo: Implementation;
  /** How to use the server; clients MAY add it to the model's system prompt. */
  instructions?: string;
}

/** Params of `ping` (optional: only `_meta`). */
export type PingRequestParams = BaseRequestParams;

/** Result of `ping`: `{}`. */
export type PingResult = EmptyResult;
