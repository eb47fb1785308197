// What a server accepts of the extensions it declared (RULES.md MT-03): a request handler only
// for a request method an extension of ServerOptions names (the handler itself goes into the
// Server's method table, dispatch.ts), a notification handler only for a client notification
// one names (kept here, read by the session that hears it).

import { extensionMethodsOf, type Extensions } from "../shared/custom-methods.js";
import type { ExtensionNotificationHandler } from "./server-options.js";

/** The extension methods a server declared, and its handlers of their client notifications. */
export class ExtensionHandlers {
  private readonly requestMethods = new Set<string>();
  private readonly notificationMethods = new Set<string>();
  private readonly notifications = new Map<string, ExtensionNotificationHandler>();

  constructor(readonly declarations: Extensions | undefined) {
    for (const m of extensionMethodsOf(declarations)) {
      if (m.kind === "request") this.requestMethods.add(m.method);
      else if (m.from === "client") this.notificationMethods.add(m.method);
    }
  }

  /** Throws unless `method` is a request of a declared extension: only those get a handler. */
  checkRequestMethod(method: string): void {
    if (!this.requestMethods.has(method))
      throw new Error(
        `[MT-03] expected a request method of a declared extension (ServerOptions.extensions[id].requests); got ${JSON.stringify(method)}`,
      );
  }

  setNotificationHandler(method: string, handler: ExtensionNotificationHandler): void {
    if (!this.notificationMethods.has(method))
      throw new Error(
        `[MT-03] expected a client notification of a declared extension (ServerOptions.extensions[id].clientNotifications); got ${JSON.stringify(method)}`,
      );
    this.notifications.set(method, handler);
  }

  notification(method: string): ExtensionNotificationHandler | undefined {
    return this.notifications.get(method);
  }
}
