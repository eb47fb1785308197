// A request the server sent our client (sampling, elicitation, roots, ping or an extension's),
// run by the client's handler pool: the handler's context ({ requestId, signal }) is the job.

import type { Engine } from "../../engine/engine.js";
import type { JsonObject, RequestId } from "../../wire/envelope.js";
import type { Driver } from "../shared/driver.js";
import { HandlerJob, respondWithError } from "../shared/handlers.js";
import type { ServerRequestContext, ServerRequestHandler } from "./client-options.js";

/** A server request run by one of our handlers: its context ({ requestId, signal }) and its pool job. */
export class ServerRequestJob extends HandlerJob implements ServerRequestContext {
  constructor(
    readonly engine: Engine<"client">,
    readonly driver: Driver<"client">,
    readonly requestId: RequestId,
    private readonly params: JsonObject | undefined,
    private readonly handler: ServerRequestHandler<JsonObject | undefined, object>,
    private readonly maxJsonDepth: number,
  ) {
    super();
  }

  work(): object | Promise<object> {
    return this.handler(this.params, this);
  }

  fail(error: unknown): void {
    respondWithError(this.engine, this.requestId, error, this.maxJsonDepth);
  }
}
