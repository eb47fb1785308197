// The Web Fetch types the public API names (createHttpHandler's fetch takes a Request and
// gives a Response), declared as empty global interfaces so the published declarations
// compile for any consumer: they merge with the DOM's, @types/node's, Bun's, Deno's or
// workers-types' full declarations, and stand alone when there are none. Emits no code.

declare global {
  // eslint-disable-next-line @typescript-eslint/no-empty-interface
  interface Request {}
  // eslint-disable-next-line @typescript-eslint/no-empty-interface
  interface Response {}
}

/** The request a fetch handler receives (the runtime's own Request). */
export type WebRequest = Request;
/** The answer a fetch handler gives (the runtime's own Response). */
export type WebResponse = Response;
