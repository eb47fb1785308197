// `mcp-engine/internal`: the building blocks behind the public Engine, for tools, tests and
// other implementations that want the tables themselves (the method table and its gate, the
// params schemas, capability bits, the feature rules, the line scanner, queues, HMAC). Not
// covered by semantic versioning: names here may change in any release.

export * from "./index.js";
export { Queue } from "./queue.js";
export { METHOD_ROWS, Phase, PHASE_NAMES, gate, methodTable } from "./methods.js";
export type { GateContext, GateRefusal, MessageKind, MethodRow, MethodTable, ParamGate, PhaseBit, PhaseName, Role, Sender } from "./methods.js";
export { Paginator, base64urlDecode, base64urlEncode } from "./pagination.js";
export type { PageOk, PageRefused, PaginatorOptions } from "./pagination.js";
export { constantTimeEqual, hmacSha256, sha256 } from "./sha256.js";
export { LOGGING_LEVELS, paramsCheck, resultCheck } from "./params.js";
export { anyObject, anyOf, anyValue, arrayOf, bool, closedEnum, idLike, int, literal, num, object, range, recordOf, str, tagged, validate } from "./schema.js";
export type { Check, Issue, Shape } from "./schema.js";
export { DEFAULT_FEATURE_LIMITS, Features, LOGGING_SEVERITY, RELATED_TASK_KEY, logAllowed, metaKeyProblem, severityOf } from "./features.js";
export type { FeatureLimits, Refusal, TaskRecord, TaskStatus } from "./features.js";
export { LineScanner } from "./line-scan.js";
export type { LineFacts } from "./line-scan.js";
export { Cap, capabilityMask, capabilityName, ALL_CAPS } from "./capabilities.js";
export type { CapName } from "./capabilities.js";
export { TASK_STATUSES, TERMINAL_TASK_STATUSES, createTaskResultProblem, declaresExtension, detailedTaskProblem, extensionCapabilities, extensionRefusal, listenTaskIds, resultTypesFor } from "./extensions.js";
export type { ExtensionRefusal, ShapeProblem } from "./extensions.js";
export { LineEncoder } from "./line-encoder.js";
