// `mcp-engine/internal`: the building blocks behind the public Engine, for tools, tests and
// other implementations that want the tables themselves (the method table and its gate, the
// params schemas, capability bits, the feature rules, the line scanner, queues, HMAC). Not
// covered by semantic versioning: names here may change in any release.

export * from "./index.js";
export { Queue } from "./engine/queue.js";
export { METHOD_ROWS, Phase, PHASE_NAMES, gate, methodTable } from "./rules/methods.js";
export type {
  GateContext,
  GateRefusal,
  MessageKind,
  MethodRow,
  MethodTable,
  ParamGate,
  PhaseBit,
  PhaseName,
  Role,
  Sender,
} from "./rules/methods.js";
export { Paginator, base64urlDecode, base64urlEncode } from "./codec/pagination.js";
export type { PageOk, PageRefused, PaginatorOptions } from "./codec/pagination.js";
export { constantTimeEqual, hmacSha256, sha256 } from "./codec/sha256.js";
export { LOGGING_LEVELS, paramsCheck, resultCheck } from "./rules/params.js";
export {
  anyObject,
  anyOf,
  anyValue,
  arrayOf,
  bool,
  closedEnum,
  idLike,
  int,
  literal,
  num,
  object,
  range,
  recordOf,
  str,
  tagged,
  validate,
} from "./rules/schema.js";
export type { Check, Issue, Shape } from "./rules/schema.js";
export {
  DEFAULT_FEATURE_LIMITS,
  Features,
  LOGGING_SEVERITY,
  RELATED_TASK_KEY,
  logAllowed,
  metaKeyProblem,
  severityOf,
} from "./rules/features.js";
export type { FeatureLimits, Refusal, TaskRecord, TaskStatus } from "./rules/features.js";
export { LineScanner } from "./wire/line-scan.js";
export type { LineFacts } from "./wire/line-scan.js";
export { Cap, capabilityMask, capabilityName, ALL_CAPS } from "./rules/capabilities.js";
export type { CapName } from "./rules/capabilities.js";
export {
  TASK_STATUSES,
  TERMINAL_TASK_STATUSES,
  createTaskResultProblem,
  declaresExtension,
  detailedTaskProblem,
  extensionCapabilities,
  extensionRefusal,
  listenTaskIds,
  resultTypesFor,
} from "./rules/negotiated-extensions.js";
export type { ExtensionRefusal, ShapeProblem } from "./rules/negotiated-extensions.js";
export { LineEncoder } from "./wire/line-encoder.js";
