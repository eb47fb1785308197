// The shapes the OAuth client and the resource server helpers share: credentials as a host
// stores them, what a verified access token tells a handler, and the injected Web Crypto.
//
// Invariants:
// - everything a store holds is plain JSON (strings, numbers, arrays), so any store can
//   serialize it; times are milliseconds since the epoch, as the host's clock gave them;
// - credentials are keyed by the authorization server's issuer (MCP 2026-07-28, SEP-2352; RULES.md AUTH-11):
//   a client registration or token never travels to another authorization server.

/** The client's identity at one authorization server. */
export interface ClientInformation {
  readonly clientId: string;
  readonly clientSecret?: string;
  /** none, client_secret_basic, client_secret_post or private_key_jwt; absent: chosen from the server's metadata. */
  readonly tokenEndpointAuthMethod?: string;
}

/** Tokens for one resource, as issued. */
export interface TokenSet {
  readonly accessToken: string;
  readonly tokenType: string;
  readonly refreshToken?: string;
  /** When the access token expires (host clock, ms), when the server said (expires_in). */
  readonly expiresAt?: number;
  /** The scopes granted (the server's `scope`, else those requested); absent when none were asked for. */
  readonly scope?: readonly string[];
  /** The resource (RFC 8707) the tokens were issued for. */
  readonly resource: string;
}

/** What a host keeps per authorization server. */
export interface StoredCredentials {
  readonly issuer: string;
  readonly client?: ClientInformation;
  readonly tokens?: TokenSet;
}

/** Where credentials live between flows; keyed by issuer. Implementations may be async (a keychain, a file). */
export interface CredentialStore {
  get(issuer: string): StoredCredentials | undefined | Promise<StoredCredentials | undefined>;
  set(credentials: StoredCredentials): void | Promise<void>;
  delete(issuer: string): void | Promise<void>;
}

/** The default store: a Map, gone with the process. */
export class MemoryCredentialStore implements CredentialStore {
  private readonly entries = new Map<string, StoredCredentials>();
  get(issuer: string): StoredCredentials | undefined {
    return this.entries.get(issuer);
  }
  set(credentials: StoredCredentials): void {
    this.entries.set(credentials.issuer, credentials);
  }
  delete(issuer: string): void {
    this.entries.delete(issuer);
  }
}

/** What a resource server learned from a valid access token; handlers read it as ctx.auth. */
export interface AuthInfo {
  readonly token: string;
  readonly scopes: readonly string[];
  readonly clientId?: string;
  readonly subject?: string;
  /** The audiences or resource the token is for (checked against the server's resource). */
  readonly audience?: readonly string[];
  /** Expiry, ms since the epoch. */
  readonly expiresAt?: number;
  /** The verified claims of a JWT access token. */
  readonly claims?: { readonly [key: string]: unknown };
}

/**
 * Bytes over an ArrayBuffer (not a SharedArrayBuffer): what Web Crypto's getRandomValues takes
 * under the DOM types of TypeScript 5.7 and later. Written as the return type of
 * Uint8Array#slice, which is Uint8Array<ArrayBuffer> there and plain Uint8Array under older
 * TypeScript, where typed arrays are not generic.
 */
export type ArrayBufferBytes = ReturnType<Uint8Array["slice"]>;

/**
 * Web Crypto's BufferSource, by shape. Methods take it (not Uint8Array) so that the platform's
 * SubtleCrypto, whose methods take BufferSource, is assignable to SubtleLike under the DOM
 * types as under @types/node; the bytes passed here are always over an ArrayBuffer.
 */
export type BufferSourceLike = ArrayBufferView | ArrayBuffer;

/** The part of Web Crypto's SubtleCrypto used here (the runtime's crypto.subtle fits, under the DOM types and @types/node 20, 22, 24). */
export interface SubtleLike {
  importKey(format: string, keyData: unknown, algorithm: unknown, extractable: boolean, usages: string[]): Promise<unknown>;
  sign(algorithm: unknown, key: unknown, data: BufferSourceLike): Promise<ArrayBuffer>;
  verify(algorithm: unknown, key: unknown, signature: BufferSourceLike, data: BufferSourceLike): Promise<boolean>;
  /** For DPoP keys (a P-256 pair made per client). */
  generateKey(algorithm: unknown, extractable: boolean, usages: string[]): Promise<unknown>;
  exportKey(format: string, key: unknown): Promise<unknown>;
}

/** The runtime's Web Crypto object (globalThis.crypto in browsers, Node 20+, Deno, Bun, Workers; its type under the DOM types and @types/node 20, 22, 24). */
export interface WebCryptoLike {
  getRandomValues<T extends ArrayBufferBytes>(array: T): T;
  readonly subtle: SubtleLike;
}
