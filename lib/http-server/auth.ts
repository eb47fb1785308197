// Who is asking (the endpoint's authenticate hook, HttpServerOptions.authenticate): the
// endpoint runs it before any MCP handling (after the Host/Origin check and CORS preflights);
// OAuth (lib/auth/) plugs in here.
//
// Invariants: AuthInfo (lib/auth/types.ts) is opaque to the endpoint (passed through to ctx.auth untouched); a
// Response the hook returns is sent as is, and the request goes no further.

export type { AuthInfo } from "../auth/types.js";
