// The features an SDK v2 (@modelcontextprotocol/server 2.4.0) McpServer user registers beside
// tools, for spec-tests/conform/sdk-v2-server.mjs: a prompt with a completable argument, a
// static resource and a resource template (with a completion), resource subscriptions and
// logging. The conformance corpus needs them declared to judge its prompts, resources,
// completion and logging fixtures (fixtures/FORMAT.md, "Applicability").
//
// Called on each McpServer serveStdio builds, before it connects (capabilities can only be
// registered then). Subscriptions have no high-level call: they go through the low-level
// `server.server`. The SDK offers no tasks extension, so none is declared.

import { completable, ResourceTemplate } from "@modelcontextprotocol/server";
import * as z from "zod";

const LANGUAGES = ["javascript", "python", "rust", "typescript"];

/** Registers the prompt, resources, completions, subscriptions and logging on `server` (an McpServer). */
export function registerFeatures(server) {
  server.registerPrompt(
    "review",
    {
      description: "Review a piece of code",
      argsSchema: z.object({ code: completable(z.string(), (value) => LANGUAGES.filter((l) => l.startsWith(value ?? ""))) }),
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
  // Registering logging installs the SDK's own logging/setLevel handler.
  low.registerCapabilities({ logging: {}, resources: { subscribe: true } });
  const subscribed = new Set();
  low.setRequestHandler("resources/subscribe", async (request) => {
    subscribed.add(request.params.uri);
    return {};
  });
  low.setRequestHandler("resources/unsubscribe", async (request) => {
    subscribed.delete(request.params.uri);
    return {};
  });
  return { subscribed };
}
