// The SSE parser as the HTTP client transport uses and exports it: the pure parser of
// lib/http/sse-parser.ts, whose over-long input is an HttpTransportError like every other
// failure of the transport.

import { SseParser } from "../http/sse-parser.js";
import { HttpTransportError } from "../peer/shared/errors.js";

/** An incremental text/event-stream parser whose input past maxLength throws HttpTransportError. */
export class HttpSseParser extends SseParser {
  protected override tooLong(message: string): Error {
    return new HttpTransportError(message);
  }
}
