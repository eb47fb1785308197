// mcp-engine/auth: MCP authorization without I/O of its own. The client is a state machine
// (AuthFlow) a host drives with HTTP responses, stored credentials, the browser's redirect
// and signatures; the resource server half builds metadata and answers credentials
// (protectedResource). JWTs are signed and verified through an injected Web Crypto.

export {
  AuthFlow,
  type AuthFlowOptions,
  type AuthStep,
  type AuthTrigger,
  type AuthHttpRequest,
  type AuthHttpResponse,
  type ClientMetadata,
} from "./flow.js";
export { OAuthFlowError } from "./errors.js";
export {
  bearerChallenge,
  formatBearerChallenge,
  formatDpopChallenge,
  parseChallenges,
  splitScope,
  unionScopes,
  type BearerChallenge,
  type Challenge,
} from "./challenge.js";
export {
  authorizationServerMetadataUrls,
  canonicalResource,
  protectedResourceMetadataUrls,
  protectedResourceMetadataPath,
  readAuthorizationServerMetadata,
  readProtectedResourceMetadata,
  resourceCovers,
  type AuthorizationServerMetadata,
  type ProtectedResourceMetadata,
} from "./metadata.js";
export {
  protectedResource,
  type AuthRequest,
  type AuthenticateResult,
  type HttpAnswer,
  type ProtectedResource,
  type ProtectedResourceOptions,
} from "./resource-server.js";
export {
  importPrivateKeyPem,
  jwtAccessTokenVerifier,
  signJws,
  signJwt,
  verifyJwt,
  type JwtVerifyOptions,
  type JwtVerifyResult,
} from "./jwt.js";
export { DPOP_ALG, accessTokenHash, dpopSigningInput, type DpopProofClaims } from "./dpop.js";
export {
  DEFAULT_DPOP_ALGORITHMS,
  MemoryDpopReplayCache,
  jwkThumbprint,
  rotatingDpopNonces,
  type DpopNonces,
  type DpopOptions,
  type DpopReplayCache,
} from "./dpop-verify.js";
export {
  MemoryCredentialStore,
  type AuthInfo,
  type ClientInformation,
  type CredentialStore,
  type StoredCredentials,
  type TokenSet,
  type WebCryptoLike,
  type SubtleLike,
} from "./types.js";
