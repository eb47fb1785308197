// JSON-RPC 2.0 envelope classification, as MCP narrows it (RULES.md M-01, M-02, M-03, M-04, M-05,
// M-06, M-07, ID-01, ID-02).
//
// classify() turns any JSON value into exactly one Envelope. It never throws and never
// copies: params, result and error objects are the caller's objects, passed by reference.
// Unknown extra members are tolerated and left where they are.
//
// Invariants:
// - classification is by the *presence* of keys, never their truthiness: `{"id": null,
//   "method": "x"}` is an invalid request, not a notification; id 0 and "" are valid;
// - an id is a string or a safe integer (|id| <= 2^53 - 1); anything else is refused, not
//   rounded or coerced, so `1` and `"1"` stay different ids;
// - an invalid envelope says which rule it broke and what shape it had, so the engine
//   knows whether it owes a reply (request-shaped and unknown shapes do; notification- and
//   response-shaped ones never do).

import { describeValue, type RuleId } from "./errors.js";

export type RequestId = string | number;

/** A JSON object (the only shape MCP allows for params and results). */
export interface JsonObject {
  [key: string]: unknown;
}

export interface ErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

export interface RequestEnvelope {
  readonly kind: "request";
  readonly id: RequestId;
  readonly method: string;
  readonly params: JsonObject | undefined;
}

export interface NotificationEnvelope {
  readonly kind: "notification";
  readonly method: string;
  readonly params: JsonObject | undefined;
}

export interface ResultEnvelope {
  readonly kind: "result";
  readonly id: RequestId;
  readonly result: JsonObject;
}

export interface ErrorEnvelope {
  readonly kind: "error";
  /** null when the peer sent `"id": null` or no id at all (allowed for errors only). */
  readonly id: RequestId | null;
  readonly error: ErrorObject;
}

export interface BatchEnvelope {
  readonly kind: "batch";
  readonly items: readonly unknown[];
}

/** What an invalid message looked like; decides whether a reply is owed. */
export type InvalidShape = "request" | "notification" | "response" | "unknown";

export interface InvalidEnvelope {
  readonly kind: "invalid";
  readonly rule: RuleId;
  readonly expected: string;
  readonly got: string;
  readonly shape: InvalidShape;
  /** The id, when it could be read as a valid id; null otherwise. */
  readonly id: RequestId | null;
}

export type Envelope = RequestEnvelope | NotificationEnvelope | ResultEnvelope | ErrorEnvelope | BatchEnvelope | InvalidEnvelope;

const MAX_SAFE = 9007199254740991;

/** True for a string or a safe integer: the ids MCP allows (ID-01, ID-02). */
export function isRequestId(value: unknown): value is RequestId {
  if (typeof value === "string") return true;
  return typeof value === "number" && Number.isInteger(value) && value <= MAX_SAFE && value >= -MAX_SAFE;
}

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Whether `key` is an own property of `object`: ES2022's Object.hasOwn, kept to ES2020 (the language floor). */
export function hasOwn(object: object, key: PropertyKey): boolean {
  return Object.prototype.hasOwnProperty.call(object, key);
}

function invalid(rule: RuleId, expected: string, got: string, shape: InvalidShape, id: RequestId | null): InvalidEnvelope {
  return { kind: "invalid", rule, expected, got, shape, id };
}

function idProblem(id: unknown): { rule: RuleId; expected: string; got: string } {
  if (id === null) return { rule: "ID-02", expected: "a string or integer id (never null)", got: "null" };
  if (typeof id === "number" && Number.isInteger(id)) {
    return { rule: "ID-01", expected: "an integer id within ±(2^53−1)", got: describeValue(id) };
  }
  return { rule: "ID-01", expected: "a string or integer id", got: describeValue(id) };
}

/** Classifies one JSON value. Arrays become a batch envelope; their items are classified separately. */
export function classify(value: unknown): Envelope {
  if (typeof value !== "object" || value === null) {
    return invalid("M-01", "a JSON-RPC 2.0 message object", describeValue(value), "unknown", null);
  }
  if (Array.isArray(value)) return { kind: "batch", items: value };
  const msg = value as JsonObject;
  const id = msg.id;
  const hasId = id !== undefined;
  const readableId = hasId && isRequestId(id) ? id : null;
  const method = msg.method;
  const hasResult = msg.result !== undefined;
  const hasError = msg.error !== undefined;

  if (method !== undefined) {
    const shape: InvalidShape = hasId ? "request" : "notification";
    if (msg.jsonrpc !== "2.0") return invalid("M-01", 'jsonrpc "2.0"', describeValue(msg.jsonrpc), shape, readableId);
    if (hasResult || hasError) {
      return invalid("M-02", "a request or a response, not both", "method together with result or error", shape, readableId);
    }
    if (hasId && readableId === null) {
      const p = idProblem(id);
      return invalid(p.rule, p.expected, p.got, shape, null);
    }
    if (typeof method !== "string") return invalid("M-02", "method as a string", describeValue(method), shape, readableId);
    const params = msg.params;
    if (params !== undefined && !isJsonObject(params)) {
      return invalid("M-03", "params absent or an object", describeValue(params), shape, readableId);
    }
    return readableId !== null
      ? { kind: "request", id: readableId, method, params: params as JsonObject | undefined }
      : { kind: "notification", method, params: params as JsonObject | undefined };
  }

  if (hasResult || hasError) {
    if (msg.jsonrpc !== "2.0") return invalid("M-01", 'jsonrpc "2.0"', describeValue(msg.jsonrpc), "response", readableId);
    if (hasResult && hasError) return invalid("M-07", "result or error, never both", "both", "response", readableId);
    if (hasResult) {
      if (readableId === null) {
        const p = hasId ? idProblem(id) : { rule: "M-04", expected: "the request's id", got: "absent" };
        return invalid(p.rule, p.expected, p.got, "response", null);
      }
      const result = msg.result;
      if (!isJsonObject(result)) return invalid("M-04", "result as an object", describeValue(result), "response", readableId);
      return { kind: "result", id: readableId, result };
    }
    // M-06: an error may come without a readable id (null or none); a malformed one is refused.
    if (hasId && id !== null && readableId === null) {
      const p = idProblem(id);
      return invalid(p.rule, p.expected, p.got, "response", null);
    }
    const error = msg.error;
    if (!isJsonObject(error)) return invalid("M-05", "error as an object", describeValue(error), "response", readableId);
    if (typeof error.code !== "number" || !Number.isInteger(error.code)) {
      return invalid("M-05", "error.code as an integer", describeValue(error.code), "response", readableId);
    }
    if (typeof error.message !== "string") {
      return invalid("M-05", "error.message as a string", describeValue(error.message), "response", readableId);
    }
    return { kind: "error", id: readableId, error: error as unknown as ErrorObject };
  }

  if (msg.jsonrpc !== "2.0") return invalid("M-01", 'jsonrpc "2.0"', describeValue(msg.jsonrpc), "unknown", readableId);
  return invalid(
    "M-02",
    "method (request or notification) or result/error (response)",
    "none of them",
    hasId ? "request" : "unknown",
    readableId,
  );
}

/** Messages as the engine writes them; key order is fixed (jsonrpc, id, method, params / result / error). */
export interface JsonRpcRequest {
  jsonrpc: "2.0";
  id: RequestId;
  method: string;
  params?: JsonObject | undefined;
}

export interface JsonRpcNotification {
  jsonrpc: "2.0";
  method: string;
  params?: JsonObject | undefined;
}

export interface JsonRpcResultResponse {
  jsonrpc: "2.0";
  id: RequestId;
  result: JsonObject;
}

export interface JsonRpcErrorResponse {
  jsonrpc: "2.0";
  /** null or absent only when the request's id could not be read (M-06, M-10). */
  id?: RequestId | null;
  error: ErrorObject;
}

export type JsonRpcResponse = JsonRpcResultResponse | JsonRpcErrorResponse;
export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse;
