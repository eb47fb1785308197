// The public surface of the core: everything here is portable (ECMAScript plus
// TextEncoder/TextDecoder), with no I/O, clock, timer, randomness or Promise.

export { ErrorCode, LocalProtocolError, describeValue } from "./errors.js";
export type { ErrorCodeName, LocalProtocolErrorInit, RuleId, Violation } from "./errors.js";
export { classify, isJsonObject, isRequestId } from "./envelope.js";
export type {
  BatchEnvelope,
  Envelope,
  ErrorEnvelope,
  ErrorObject,
  InvalidEnvelope,
  InvalidShape,
  JsonObject,
  NotificationEnvelope,
  RequestEnvelope,
  RequestId,
  ResultEnvelope,
} from "./envelope.js";
export { DEFAULT_MAX_LINE_BYTES, LineDecoder, encodeMessage, encodeMessages } from "./framing.js";
export type { DecodedItem, DecodedValue, FramingError, FramingErrorReason, LineDecoderOptions } from "./framing.js";
export { Queue } from "./queue.js";
