// The features an SDK v1 (@modelcontextprotocol/sdk 1.32.2) McpServer user registers beside
// tools, for spec-tests/conform/sdk-v1-server.mjs: a prompt with a completable argument, a
// static resource and a resource template (with a completion), resource subscriptions and
// logging. The conformance corpus needs them declared to judge its prompts, resources,
// completion and logging fixtures (fixtures/FORMAT.md, "Applicability"). Plain JavaScript, so
// the build does not type-check the SDK's declarations.
//
// Called before connect (capabilities can only be registered then). What McpServer offers no
// high-level call for (logging after construction, subscriptions) goes through its low-level
// `server.server`, as the SDK documents for advanced use.

import { completable } from "@modelcontextprotocol/sdk/server/completable.js";
import { ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import {
  LoggingLevelSchema,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import * as z from "zod";

const LANGUAGES = ["javascript", "python", "rust", "typescript"];

/** Registers the prompt, resources, completions, subscriptions and logging on `server` (an McpServer). */
export function registerFeatures(server) {
  server.registerPrompt(
    "review",
    {
      description: "Review a piece of code",
      argsSchema: { code: completable(z.string(), (value) => LANGUAGES.filter((l) => l.startsWith(value ?? ""))) },
    },
    ({ code }) => ({ messages: [{ role: "user", content: { type: "text", text: `Please review:\n${code}` } }] }),
  );
  server.registerResource("a", "file:///a", { mimeType: "text/plain" }, async (uri) => ({
    contents: [{ uri: uri.href, mimeType: "text/plain", text: "a" }],
  }));
  server.registerResource(
    "file",
    new ResourceTemplate("file:///dir/{name}", {
      list: undefined,
      complete: { name: (value) => ["one", "two"].filter((n) => n.startsWith(value ?? "")) },
    }),
    { mimeType: "text/plain" },
    async (uri, { name }) => ({ contents: [{ uri: uri.href, mimeType: "text/plain", text: String(name) }] }),
  );

  const low = server.server;
  low.registerCapabilities({ logging: {}, resources: { subscribe: true } });
  // The SDK installs its own logging/setLevel handler only when logging is given to the
  // constructor; this one does the same: it keeps the level in the map sendLoggingMessage filters by.
  low.setRequestHandler(SetLevelRequestSchema, async (request, extra) => {
    const level = LoggingLevelSchema.safeParse(request.params.level);
    if (level.success) low._loggingLevels?.set(extra.sessionId, level.data);
    return {};
  });
  const subscribed = new Set();
  low.setRequestHandler(SubscribeRequestSchema, async (request) => {
    subscribed.add(request.params.uri);
    return {};
  });
  low.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
    subscribed.delete(request.params.uri);
    return {};
  });
  return { subscribed };
}
