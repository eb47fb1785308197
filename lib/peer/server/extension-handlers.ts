// A server's handlers of the requests and client notifications of the extensions it declared
// (RULES.md MT-03): a handler is accepted only for a method an extension of ServerOptions names.

import type { JsonObject } from "../../wire/envelope.js";
import { extensionMethodsOf, type Extensions } from "../shared/custom-methods.js";
import type { HandlerContext } from "./context.js";
import type { ServerSession } from "./server.js";

/** A server's handlers of extension requests and client notifications, each checked against the declarations. */
export class ExtensionHandlers<Request, Notification> {
  private readonly requestMethods = new Set<string>();
  private readonly notificationMethods = new Set<string>();
  private readonly requests = new Map<string, Request>();
  private readonly notifications = new Map<string, Notification>();

  constructor(readonly declarations: Extensions | undefined) {
    for (const m of extensionMethodsOf(declarations)) {
      if (m.kind === "request") this.requestMethods.add(m.method);
      else if (m.from === "client") this.notificationMethods.add(m.method);
    }
  }

  setRequestHandler(method: string, handler: Request): void {
    if (!this.requestMethods.has(method))
      throw new Error(
        `[MT-03] expected a request method of a declared extension (ServerOptions.extensions[id].requests); got ${JSON.stringify(method)}`,
      );
    this.requests.set(method, handler);
  }

  setNotificationHandler(method: string, handler: Notification): void {
    if (!this.notificationMethods.has(method))
      throw new Error(
        `[MT-03] expected a client notification of a declared extension (ServerOptions.extensions[id].clientNotifications); got ${JSON.stringify(method)}`,
      );
    this.notifications.set(method, handler);
  }

  request(method: string): Request | undefined {
    return this.requests.get(method);
  }

  notification(method: string): Notification | undefined {
    return this.notifications.get(method);
  }
}

/** A server's handler of an extension request: its params as sent, its result answered like any handler's. */
export type ExtensionRequestHandler<P = JsonObject | undefined, R extends object = object> = (
  params: P,
  context: HandlerContext,
) => R | Promise<R>;

/** A server's handler of an extension notification from the client. */
export type ExtensionNotificationHandler<P = JsonObject | undefined> = (params: P, session: ServerSession) => void;
