// The UTF-8 the layers above the core decode and encode, run inside other JavaScript engines
// (QuickJS) and in Node to compare: an SSE stream cut at every byte (a BOM and multi-byte
// characters split), 2026-07-28's base64 header values both ways, a response body read whole
// from chunks cut inside characters and cut at its cap (inside a character), a POST body checked for UTF-8 by the
// HTTP handler, a JWT whose claims carry non-ASCII text, and a DPoP access-token hash. Each
// step goes through lib/wire/utf8.ts, so on an engine without TextEncoder/TextDecoder it runs
// the built-in codec. Portable like the core: ECMAScript only. Not a test file itself.

import { accessTokenHash, verifyJwt, type WebCryptoLike } from "../../lib/auth/index.js";
import { base64urlEncode } from "../../lib/codec/pagination.js";
import { sha256 } from "../../lib/codec/sha256.js";
import { readBody } from "../../lib/http-client/body.js";
import { decodeHeaderValue } from "../../lib/http/headers.js";
import { encodeHeaderValue } from "../../lib/http/client-rules.js";
import { SseParser, type SseEvent } from "../../lib/http/sse-parser.js";
import { decodeBody } from "../../lib/http-server/fetch.js";
import { encodeUtf8 } from "../../lib/wire/utf8.js";

const TEXT = "héllo € 😀 𐍈 日本";

/** A body stream that hands out `chunks` in order. */
function streamOf(chunks: readonly Uint8Array[]): {
  getReader(): { read(): Promise<{ done: boolean; value?: Uint8Array }>; cancel(): Promise<void> };
} {
  let at = 0;
  return {
    getReader: () => ({
      read: async () => (at < chunks.length ? { done: false, value: chunks[at++] } : { done: true }),
      cancel: async () => undefined,
    }),
  };
}

/** Cut after every lead byte of a multi-byte character. */
function insideCharacters(bytes: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = [];
  let start = 0;
  for (let i = 0; i < bytes.length; i++) {
    if ((bytes[i] as number) >= 0xc0) {
      out.push(bytes.subarray(start, i + 1));
      start = i + 1;
    }
  }
  out.push(bytes.subarray(start));
  return out;
}

/** A host's Web Crypto stand-in whose "signature" is the SHA-256 of the signed input: verify checks exactly that. */
const DIGEST_CRYPTO: WebCryptoLike = {
  getRandomValues: (array) => array,
  subtle: {
    importKey: async () => ({}),
    verify: async (_params: unknown, _key: unknown, signature: Uint8Array, data: Uint8Array) =>
      base64urlEncode(signature) === base64urlEncode(sha256(data)),
  } as unknown as WebCryptoLike["subtle"],
};

function jwtPart(value: unknown): string {
  return base64urlEncode(encodeUtf8(JSON.stringify(value)));
}

/** Every step's outcome, as plain strings. */
export async function layersProbe(): Promise<string[]> {
  const log: string[] = [];

  const sse = encodeUtf8(`\uFEFFid: 7\ndata: ${TEXT}\ndata: second line\n\nevent: end\ndata: ☃\n\n`);
  const parser = new SseParser();
  const events: SseEvent[] = [];
  for (let i = 0; i < sse.length; i++) parser.push(sse.subarray(i, i + 1), events);
  parser.finish();
  for (const e of events) log.push(`sse ${e.type} ${e.id} ${JSON.stringify(e.data)}`);

  const header = encodeHeaderValue(TEXT);
  log.push(`header ${header} ${JSON.stringify(decodeHeaderValue(header))}`);
  log.push(`header broken ${String(decodeHeaderValue("=?base64?/w==?="))}`);

  const body = encodeUtf8(`\uFEFF{"text":"${TEXT}"}`);
  const whole = await readBody(streamOf(insideCharacters(body)), { maxBytes: 1024, what: "a test body", past: "fail" });
  log.push(`body ${JSON.stringify(whole)}`);
  const cut = await readBody(streamOf(insideCharacters(body)), { maxBytes: 14, what: "a test body", past: "cut" });
  log.push(`body cut ${JSON.stringify(cut)}`);

  log.push(`post ${JSON.stringify(decodeBody(insideCharacters(body), body.length))}`);
  log.push(`post ${JSON.stringify(decodeBody([Uint8Array.of(0x7b, 0xed, 0xa0, 0x80, 0x7d)], 5))}`);

  const signingInput = `${jwtPart({ alg: "ES256", typ: "at+jwt" })}.${jwtPart({ sub: "zoë", exp: 2_000_000_000, note: TEXT })}`;
  const token = `${signingInput}.${base64urlEncode(sha256(encodeUtf8(signingInput)))}`;
  const jwks = { keys: [{ kty: "EC", crv: "P-256", x: "x", y: "y" }] };
  const verified = await verifyJwt(token, { crypto: DIGEST_CRYPTO, jwks, now: 1_900_000_000_000 });
  log.push(`jwt ${JSON.stringify(verified)}`);
  const badClaims = `${jwtPart({ alg: "ES256" })}.${base64urlEncode(Uint8Array.of(0x7b, 0xc0, 0x80, 0x7d))}.AA`;
  log.push(`jwt ${JSON.stringify(await verifyJwt(badClaims, { crypto: DIGEST_CRYPTO, jwks, now: 0 }))}`);

  log.push(`ath ${accessTokenHash(`token-${TEXT}`)}`);
  return log;
}
