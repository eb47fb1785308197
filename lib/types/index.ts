// Hand-written TypeScript types for the MCP data model of the four session-era protocol
// versions 2024-11-05, 2025-03-26, 2025-06-18 and 2025-11-25: params and results of every
// method, notification params, capabilities, content blocks and supporting objects, and
// the four method maps (ClientRequests, ServerRequests, ClientNotifications,
// ServerNotifications). Type-only: this module emits no runtime code.
//
// Members introduced after 2024-11-05 are optional and tagged `@since`; where a later
// version widened a type, the wider form is used. The files under ./types/ hold the parts.

export type * from "./base.js";
export type * from "./content.js";
export type * from "./capabilities.js";
export type * from "./lifecycle.js";
export type * from "./server.js";
export type * from "./client.js";
export type * from "./tasks.js";
export type * from "./notifications.js";
export type * from "./methods.js";
