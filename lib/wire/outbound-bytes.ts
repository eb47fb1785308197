// The usual outbound messages written as bytes without stringifying their envelope: a request,
// a notification or a result is `{"jsonrpc":"2.0",` + its id + its method + its params or
// result, and only the params or result (the part a host supplied) goes through
// JSON.stringify. The constant parts are copied from bytes encoded once, a numeric id is
// written digit by digit, and the answer to ping (EMPTY_RESULT) is written whole. What comes
// out is byte for byte what JSON.stringify of the whole message gives (the messages are built
// by this engine only, with their keys in this order: lib/engine/engine.ts, lib/engine/outbound-replies.ts, ...).
//
// In a drain of several messages the same envelope is written as text instead (envelopeJson),
// to be concatenated with the others' and encoded in one call.
//
// Anything else (an error response, a batch reply, a payload JSON.stringify gives no text for)
// is not written here: writeMessage rewinds whatever it wrote of that message and answers
// false, and the caller takes the general path (lib/wire/outbound-json.ts). A payload whose
// encoding throws is refused as the general path refuses it (ENG-09), without encoding it twice.
//
// Invariants: nothing here throws; a message written here ends with "\n"; the ids a peer sent
// come out as JSON.stringify writes them (strings escaped, numbers in their shortest form).

import type { JsonObject, JsonRpcMessage } from "./envelope.js";
import type { LineEncoder } from "./line-encoder.js";
import { refuse, type Refusal } from "./outbound-json.js";
import { asciiBytes, encodeUtf8 } from "./utf8.js";

/** The result of every ping answer: recognised by identity, written without a stringify. Frozen: hosts that read it through pollOutbound share it. */
export const EMPTY_RESULT: JsonObject = Object.freeze({}) as JsonObject;

// ASCII, so made without a codec: loading this module needs no TextEncoder.
const OPEN_WITH_ID = asciiBytes('{"jsonrpc":"2.0","id":');
const OPEN_WITHOUT_ID = asciiBytes('{"jsonrpc":"2.0",');
const METHOD = asciiBytes('"method":');
const COMMA_METHOD = asciiBytes(',"method":');
const COMMA_PARAMS = asciiBytes(',"params":');
const COMMA_RESULT = asciiBytes(',"result":');
const EMPTY_RESULT_END = asciiBytes(',"result":{}}\n');
const CLOSE_BRACE = 0x7d;
const NEWLINE = 0x0a;

/** The JSON strings of the methods we send, encoded once (they are few and ours, not a peer's; the table stops growing at METHODS_KEPT). */
const methods = new Map<string, Uint8Array>();
const METHODS_KEPT = 64;

/** The fields writeMessage reads; any message may lack any of them. */
interface Fields {
  readonly id?: unknown;
  readonly method?: unknown;
  readonly params?: unknown;
  readonly result?: unknown;
}

/** A message writeMessage writes without any JSON.stringify: a ping answer, a request or notification without params. */
export function isBare(message: JsonRpcMessage | readonly JsonRpcMessage[]): boolean {
  const m = message as Fields;
  return typeof m.method === "string" ? m.params === undefined : m.result === EMPTY_RESULT;
}

/** What writePayload caught, for writeMessage to hand to the refusal (NOTHING when it caught nothing). */
const NOTHING: unique symbol = Symbol("nothing");
let caught: unknown = NOTHING;

/**
 * Writes `message` and its newline; false (and nothing written) when it takes the general path.
 * A payload whose encoding throws is refused here, with what it threw (ENG-09): it is not
 * encoded a second time, so a toJSON or getter runs once, as with one JSON.stringify.
 */
export function writeMessage(lines: LineEncoder, message: JsonRpcMessage | readonly JsonRpcMessage[], refused: Refusal[]): boolean {
  if (writeEnvelope(lines, message)) return true;
  if (caught === NOTHING) return false;
  const error = caught;
  caught = NOTHING;
  const text = refuse(message as JsonRpcMessage, error, refused);
  if (text !== undefined) lines.write(text, true);
  return true;
}

function writeEnvelope(lines: LineEncoder, message: JsonRpcMessage | readonly JsonRpcMessage[]): boolean {
  const m = message as Fields;
  const mark = lines.drainLength;
  const { id, method } = m;
  if (typeof method === "string") {
    if (id === undefined) {
      lines.raw(OPEN_WITHOUT_ID);
      lines.raw(METHOD);
    } else {
      lines.raw(OPEN_WITH_ID);
      if (!writeId(lines, id)) return rewind(lines, mark);
      lines.raw(COMMA_METHOD);
    }
    lines.raw(methodBytes(method));
    if (m.params !== undefined && !writePayload(lines, COMMA_PARAMS, m.params)) return rewind(lines, mark);
  } else {
    const { result } = m;
    if (result === undefined || id === undefined || Array.isArray(message)) return false;
    lines.raw(OPEN_WITH_ID);
    if (!writeId(lines, id)) return rewind(lines, mark);
    if (result === EMPTY_RESULT) {
      lines.raw(EMPTY_RESULT_END);
      return true;
    }
    if (!writePayload(lines, COMMA_RESULT, result)) return rewind(lines, mark);
  }
  lines.byte(CLOSE_BRACE);
  lines.byte(NEWLINE);
  return true;
}

function rewind(lines: LineEncoder, mark: number): false {
  lines.rewind(mark);
  return false;
}

function writeId(lines: LineEncoder, id: unknown): boolean {
  if (isDigitsId(id)) {
    lines.integer(id);
    return true;
  }
  const text = idJson(id);
  if (text === undefined) return false;
  lines.text(text);
  return true;
}

/** An id JSON writes as its decimal digits alone. */
function isDigitsId(id: unknown): id is number {
  return typeof id === "number" && Number.isSafeInteger(id) && id >= 0;
}

/** The id as JSON.stringify writes it (-1, 1.5, 1e+21; -0 as 0; strings escaped); undefined for what no id may be. */
function idJson(id: unknown): string | undefined {
  if (isDigitsId(id)) return "" + id;
  return typeof id === "string" || typeof id === "number" ? JSON.stringify(id) : undefined;
}

/** `,"params":` or `,"result":` and the value's JSON; false when JSON.stringify gives no text for it or throws. */
function writePayload(lines: LineEncoder, key: Uint8Array, value: unknown): boolean {
  let text: unknown;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    caught = error;
    return false;
  }
  if (typeof text !== "string") return false;
  lines.raw(key);
  lines.text(text);
  return true;
}

/**
 * The JSON text of `message` (no newline) as JSON.stringify of the whole message gives it,
 * made of the envelope's constant parts and one JSON.stringify of its params or result: for
 * the messages of a drain of several, whose texts are concatenated and encoded together
 * (cheaper than stringifying each envelope: measured 20 to 40 % less per message). Undefined
 * for what writeEnvelope leaves to the general path too; a payload whose encoding throws is
 * refused here (ENG-09) and its text is the -32603 answer, or "" when the message is dropped.
 */
export function envelopeJson(message: JsonRpcMessage | readonly JsonRpcMessage[], refused: Refusal[]): string | undefined {
  const m = message as Fields;
  const { id, method } = m;
  let head: string;
  let payload: unknown;
  if (typeof method === "string") {
    if (id === undefined) head = '{"jsonrpc":"2.0",' + methodJson(method).slice(1);
    else {
      const idText = idJson(id);
      if (idText === undefined) return undefined;
      head = '{"jsonrpc":"2.0","id":' + idText + methodJson(method);
    }
    payload = m.params;
    if (payload === undefined) return head + "}";
    head += ',"params":';
  } else {
    const { result } = m;
    if (result === undefined || id === undefined || Array.isArray(message)) return undefined;
    const idText = idJson(id);
    if (idText === undefined) return undefined;
    if (result === EMPTY_RESULT) return '{"jsonrpc":"2.0","id":' + idText + ',"result":{}}';
    head = '{"jsonrpc":"2.0","id":' + idText + ',"result":';
    payload = result;
  }
  let text: unknown;
  try {
    text = JSON.stringify(payload);
  } catch (error) {
    return refuse(message as JsonRpcMessage, error, refused) ?? "";
  }
  return typeof text === "string" ? head + text + "}" : undefined;
}

/** `,"method":` and the method's JSON string, made once per method (up to METHODS_KEPT). */
function methodJson(method: string): string {
  const kept = methodTexts.get(method);
  if (kept !== undefined) return kept;
  const text = ',"method":' + JSON.stringify(method);
  if (methodTexts.size < METHODS_KEPT) methodTexts.set(method, text);
  return text;
}

const methodTexts = new Map<string, string>();

/** The method's JSON string as UTF-8. */
function methodBytes(method: string): Uint8Array {
  const kept = methods.get(method);
  if (kept !== undefined) return kept;
  const bytes = encodeUtf8(JSON.stringify(method));
  if (methods.size < METHODS_KEPT) methods.set(method, bytes);
  return bytes;
}
