// The host commands of the fixture format (fixtures/FORMAT.md, "Host commands") performed on
// an Engine: one table shared by the engine's own replayer (in spec-tests/) and the
// host adapter our `serve` speaks (adapter.ts), so both mean the same by each op.
//
// Also shared: how a fixture's `config.extensions` (extension id → the methods it adds, in the
// shape of the peer layer's ExtensionDeclaration) becomes the engine's extensionMethods.
//
// Invariant: an unknown op is refused with an Error naming it; the arguments are passed to the
// Engine as they come, whose own checks refuse bad ones (LocalProtocolError, with its rule).

import type { Engine } from "../../engine/engine.js";
import type { ExtensionMethod } from "../../rules/custom-methods.js";
import { extensionMethodsOf, type Extensions } from "../../peer/shared/custom-methods.js";

/**
 * The engine options of a fixture's `config` (FORMAT.md, "Configuration"): every key as it is,
 * but `extensions`, which becomes `extensionMethods`. Throws a RangeError (naming MT-04 or MT-06)
 * for a declaration the engine's table refuses.
 */
export function engineConfigOf(config: { readonly [key: string]: unknown }): { [key: string]: unknown } {
  const { extensions, ...rest } = config;
  if (extensions === undefined) return rest;
  if (typeof extensions !== "object" || extensions === null || Array.isArray(extensions))
    throw new RangeError(`expected config.extensions as an object of extension declarations; got ${JSON.stringify(extensions)}`);
  const extensionMethods: ExtensionMethod[] = extensionMethodsOf(extensions as Extensions);
  return { ...rest, extensionMethods };
}

export interface HostCall {
  readonly op: string;
  readonly [key: string]: unknown;
}

/** The ops an engine host can perform, by name. */
export const HOST_OPS = [
  "initialize",
  "acceptInitialize",
  "request",
  "notify",
  "respond",
  "respondError",
  "sendProgress",
  "sendTaskProgress",
  "cancel",
  "setDeadline",
  "close",
  "startModern",
  "endSubscriptions",
] as const;

export function performHostCall(engine: Engine, call: HostCall): unknown {
  // The fixture's arguments are untyped JSON; the engine validates each one itself.
  const a = call as unknown as Record<string, never>;
  switch (call.op) {
    case "initialize":
      return engine.initialize(a.options);
    case "acceptInitialize":
      return engine.acceptInitialize();
    case "request":
      return engine.request(a.method, a.params, a.options);
    case "notify":
      return engine.notify(a.method, a.params, a.options);
    case "respond":
      return engine.respond(a.id, a.result);
    case "respondError":
      return engine.respondError(a.id, a.code, a.message, a.data);
    case "sendProgress":
      return engine.sendProgress(a.id, a.progress, a.total, a.message);
    case "sendTaskProgress":
      return engine.sendTaskProgress(a.taskId, a.progress, a.total, a.message);
    case "cancel":
      return engine.cancel(a.id, a.reason);
    case "setDeadline":
      return engine.setDeadline(a.id, a.deadline ?? undefined);
    case "close":
      return engine.close();
    case "startModern":
      return engine.startModern(a.version);
    case "endSubscriptions":
      return engine.endSubscriptions();
    default:
      throw new Error(`unknown op ${String(call.op)}`);
  }
}
