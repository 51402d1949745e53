/**
 * Service configuration, read from environment variables in one place.
 *
 * Only `src/server.ts` (and the CLIs) pass `process.env` here; the app itself receives a
 * {@link Config} object, so tests build it directly. Every variable is listed in README.md.
 *
 * @module config
 */
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';

/** Log levels accepted by pino, lowest to highest. */
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** The service configuration. */
export interface Config {
  /** TCP port to listen on (`PORT`, default 3000). */
  port: number;
  /** Interface to bind (`HOST`, default 127.0.0.1). */
  host: string;
  /** Directory for the embedded database and generated secrets (`DATA_DIR`, default ./data). */
  dataDir: string;
  /** PostgreSQL connection string (`DATABASE_URL`); unset means the embedded PGlite database. */
  databaseUrl: string | undefined;
  /** Base URL used in links (`PUBLIC_BASE_URL`); unset means derived from each request's host. */
  publicBaseUrl: string | undefined;
  /** Administration token (`ADMIN_TOKEN`); see {@link resolveAdminToken} for the fallback. */
  adminToken: string | undefined;
  /** Log level (`LOG_LEVEL`, default info). */
  logLevel: LogLevel;
  /** Validate every response against the contract (`VALIDATE_RESPONSES=true`; tests and dev). */
  validateResponses: boolean;
  /** Requests per second per operation and account, all its API keys together (`RATE_LIMIT_PER_SECOND`, default 10; 0 = off). */
  rateLimitPerSecond: number;
  /**
   * Requests per minute a publishable key may make from one web origin and client address,
   * preflights included (`PUBLISHABLE_RATE_LIMIT_PER_MINUTE`, default 30; 0 = off;
   * src/http/publishableKeys.ts).
   */
  publishableRateLimitPerMinute: number;
  /** Largest JSON request body accepted, in bytes (`BODY_LIMIT_BYTES`, default 1 MiB). */
  bodyLimitBytes: number;
  /** How long shutdown waits for in-flight requests, in ms (`SHUTDOWN_TIMEOUT_MS`, default 10000). */
  shutdownTimeoutMs: number;
  /** Time allowed for a request's headers, in ms (`HEADERS_TIMEOUT_MS`, default 10000); then 408. */
  headersTimeoutMs: number;
  /** Time allowed for a whole request, body included, in ms (`REQUEST_TIMEOUT_MS`, default 30000); then 408. */
  requestTimeoutMs: number;
  /**
   * Failed authentications allowed per client address per minute before its requests get 429
   * (`AUTH_FAILURES_PER_MINUTE`, default 20; 0 = no limit).
   */
  authFailuresPerMinute: number;
  /**
   * Express `trust proxy` (`TRUST_PROXY`): unset trusts no proxy (the client address is the
   * socket's); a number of proxy hops, or a comma-separated list of proxy addresses/subnets (or
   * `loopback`, `uniquelocal`), whose `X-Forwarded-For` gives the client address.
   */
  trustProxy: boolean | number | string;
  /**
   * Key encrypting secrets at rest (`SECRETS_KEY`: 32 bytes as 64 hex digits or base64); see
   * {@link resolveSecretsKey} for the fallback when unset.
   */
  secretsKey: Buffer | undefined;
  /**
   * The key `SECRETS_KEY` replaces, during a rotation (`SECRETS_KEY_PREVIOUS`, same form): still
   * accepted for reading sealed values, never for sealing (README, "Rotating SECRETS_KEY").
   */
  secretsKeyPrevious: Buffer | undefined;
  /** Apple pass type identifier (`APPLE_PASS_TYPE_ID`, default `pass.dev.wallet-pass-service`). */
  applePassTypeId: string;
  /**
   * Accept Apple credentials whose WWDR certificate is not Apple's WWDR G4, e.g. from
   * `npm run admin -- apple dev-certificate` (`APPLE_ALLOW_DEVELOPMENT_CERTIFICATES`; default
   * true on the embedded database, false with `DATABASE_URL`). Such passes open in tooling only.
   * It also lets passes carry an `http:` web service URL (a `PUBLIC_BASE_URL` without TLS), which
   * Wallet refuses on a real device.
   */
  appleAllowDevelopmentCertificates: boolean;
  /**
   * Let template image fetches reach private, loopback and link-local addresses
   * (`IMAGE_FETCH_ALLOW_PRIVATE`, default false). On the embedded database, `http` images on
   * loopback are allowed anyway, for local development.
   */
  imageFetchAllowPrivate: boolean;
  /**
   * The Apple Push Notification service (`APNS_URL`, default `https://api.push.apple.com`, where
   * Wallet's push tokens belong); tests and air-gapped installs point it at a stand-in.
   */
  apnsUrl: string;
  /**
   * Let webhook subscriptions point at private, loopback and link-local addresses, and at `http:`
   * URLs on loopback (`WEBHOOK_ALLOW_PRIVATE`, default false; tests and private installs).
   */
  webhookAllowPrivate: boolean;
  /**
   * First retry delay of a webhook delivery, in ms (`WEBHOOK_RETRY_BASE_MS`, default 30000); each
   * further retry waits twice as long (at most an hour), with jitter.
   */
  webhookRetryBaseMs: number;
  /** How long a webhook delivery is retried before it is marked failed, in ms (`WEBHOOK_RETRY_WINDOW_MS`, default 86400000: a day). */
  webhookRetryWindowMs: number;
  /**
   * The time budget of one outbound request to an address a user chose — a template image, and
   * the default of {@link Config.webhookTimeoutMs} — in ms (`OUTBOUND_TIMEOUT_MS`, default 5000): it
   * covers resolving the name, connecting, the TLS handshake and the whole response
   * (src/net/outboundRequest.ts).
   */
  outboundTimeoutMs: number;
  /** The time budget of one webhook request, in ms (`WEBHOOK_TIMEOUT_MS`, default `OUTBOUND_TIMEOUT_MS`). */
  webhookTimeoutMs: number;
  /** Deliveries failing in a row after which a subscription is disabled (`WEBHOOK_DISABLE_AFTER_FAILURES`, default 5). */
  webhookDisableAfterFailures: number;
  /** Days audit events are kept (`AUDIT_RETENTION_DAYS`, default 400; src/domain/audit/auditRetention.ts). */
  auditRetentionDays: number;
  /** Rows of a CSV pass batch per chunk transaction (`PASS_BATCH_CHUNK_SIZE`, default 1000; smaller shows progress in finer steps). */
  passBatchChunkSize: number;
  /**
   * Server processes (`WEB_CONCURRENCY`, src/cluster.ts; default: the number of CPUs with
   * `DATABASE_URL`, 1 on the embedded database, which one process owns).
   */
  webConcurrency: number;
  /** Largest PostgreSQL connection pool of each process (`DATABASE_POOL_SIZE`, default 10). */
  databasePoolSize: number;
  /**
   * The Google Wallet API (`GOOGLE_WALLET_API_URL`, default
   * `https://walletobjects.googleapis.com/walletobjects/v1`); tests and air-gapped installs point
   * it at a stand-in.
   */
  googleWalletApiUrl: string;
  /** Google's OAuth 2.0 token endpoint (`GOOGLE_OAUTH_TOKEN_URL`, default `https://oauth2.googleapis.com/token`). */
  googleOauthTokenUrl: string;
  /**
   * The `origins` of "Save to Google Wallet" JWTs (`GOOGLE_SAVE_ORIGINS`, comma-separated
   * origins such as `https://shop.example.com`; default none): the web pages allowed to show the
   * save button with the JWT (https://developers.google.com/wallet/reference/rest/v1/Jwt).
   */
  googleSaveOrigins: string[];
  /**
   * Google Wallet API calls per second per issuer, all workers together
   * (`GOOGLE_WALLET_REQUESTS_PER_SECOND`, default 20: Google's quota).
   */
  googleWalletRequestsPerSecond: number;
  /**
   * Have Google call the service back when a holder saves or deletes a pass's object
   * (`GOOGLE_WALLET_CALLBACKS`, default false): every class written carries
   * `callbackOptions.url` = `<PUBLIC_BASE_URL>/wallet/google/v1/callbacks`
   * (https://developers.google.com/wallet/generic/use-cases/use-callbacks-for-saves-and-deletions),
   * which must be HTTPS and reachable from the internet. Needs `PUBLIC_BASE_URL`.
   */
  googleWalletCallbacks: boolean;
  /**
   * Google's root signing keys of callbacks (`GOOGLE_WALLET_CALLBACK_KEYS_URL`, default
   * `https://pay.google.com/gp/m/issuer/keys`); tests and air-gapped installs point it at a stand-in.
   */
  googleWalletCallbackKeysUrl: string;
  /**
   * Where the operator puts the official wallet badges the holder page shows
   * (`HOLDER_PAGE_BADGES_DIR`, default none: plain labelled buttons): `add-to-apple-wallet.svg`
   * (Apple: https://developer.apple.com/wallet/add-to-apple-wallet-guidelines/) and
   * `add-to-google-wallet.svg` (Google: https://developers.google.com/wallet/generic/resources/brand-guidelines),
   * or the same names in `.png`.
   */
  holderPageBadgesDir: string | null;
  /** A console session ends after this many minutes without a request (`SESSION_IDLE_TIMEOUT_MINUTES`, default 30). */
  sessionIdleTimeoutMinutes: number;
  /** A console session ends this many hours after sign-in whatever happens (`SESSION_ABSOLUTE_TIMEOUT_HOURS`, default 12). */
  sessionAbsoluteTimeoutHours: number;
  /**
   * Where invitations are sent by e-mail (`SMTP_URL`, e.g. `smtps://user:pass@smtp.example.com`,
   * nodemailer's connection URL, https://nodemailer.com/smtp/); unset sends no e-mail.
   */
  smtpUrl: string | undefined;
  /** The sender of those e-mails (`SMTP_FROM`, default `Wallet Pass Service <no-reply@` the public host `>`). */
  smtpFrom: string | undefined;
}

/** Thrown when an environment variable has an unusable value; the message names the variable. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}".`);
  }
  return value;
}

function boolean(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw !== 'true' && raw !== 'false') throw new ConfigError(`${name} must be true or false, got "${raw}".`);
  return raw === 'true';
}

function url(env: NodeJS.ProcessEnv, name: string, protocols: string[]): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be a URL, got "${raw}".`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(`${name} must use ${protocols.join(' or ')}.`);
  }
  return raw.replace(/\/+$/, '');
}

/** A comma-separated list of web origins (`https://host[:port]`), each checked. */
function origins(env: NodeJS.ProcessEnv, name: string): string[] {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return [];
  return raw.split(',').map((part) => {
    const text = part.trim();
    let parsed: URL | undefined;
    try {
      parsed = new URL(text);
    } catch {
      parsed = undefined;
    }
    if (!parsed || !['http:', 'https:'].includes(parsed.protocol) || parsed.origin !== text.replace(/\/+$/, '')) {
      throw new ConfigError(`${name} must be comma-separated origins such as https://shop.example.com, got "${text}".`);
    }
    return parsed.origin;
  });
}

/**
 * Where the admin CLI finds the administration API of the server on this machine: `ADMIN_URL`
 * when set, else `http://<HOST>:<PORT>` with `HOST` and `PORT` read as {@link loadConfig} reads
 * them for the server (defaults `127.0.0.1`, `3000`), so that the CLI follows a server started on
 * another port or interface. A wildcard `HOST` (`0.0.0.0`, `::`), on which the server listens on
 * every interface, is reached at loopback; an IPv6 address is bracketed (RFC 3986, section 3.2.2).
 * @param env Usually `process.env`.
 * @returns The base URL, without a trailing slash.
 * @throws ConfigError for an `ADMIN_URL` that is not an http(s) URL, an unusable `PORT`, or
 *   `PORT=0` (the server then picks a port: set `ADMIN_URL` to the URL it logged).
 */
export function adminApiUrl(env: NodeJS.ProcessEnv): string {
  const admin = url(env, 'ADMIN_URL', ['http:', 'https:']);
  if (admin) return admin;
  const port = integer(env, 'PORT', 3000, 0, 65535);
  if (port === 0) throw new ConfigError('PORT=0 lets the server pick a port; set ADMIN_URL to the URL the server logged.');
  const host = env.HOST || '127.0.0.1';
  const reachable = host === '0.0.0.0' ? '127.0.0.1' : host === '::' || host === '[::]' ? '::1' : host;
  return `http://${reachable.includes(':') && !reachable.startsWith('[') ? `[${reachable}]` : reachable}:${port}`;
}

/** Google's root signing keys of Wallet callbacks (Google, "Add and delete callbacks", `PUBLIC_KEY_URL`). */
export const GOOGLE_WALLET_CALLBACK_KEYS_URL = 'https://pay.google.com/gp/m/issuer/keys';

/** Default time budget of one outbound request, in ms (`OUTBOUND_TIMEOUT_MS`). */
export const DEFAULT_OUTBOUND_TIMEOUT_MS = 5000;
/** Days audit events are kept by default (src/domain/audit/auditRetention.ts). */
export const DEFAULT_AUDIT_RETENTION_DAYS = 400;

/** Length of the secrets key, in bytes (AES-256). */
export const SECRETS_KEY_BYTES = 32;

/**
 * Parses a secrets key written as 64 hex digits or as base64 / base64url (43 characters and an
 * optional `=`), e.g. the output of `openssl rand -base64 32`.
 * @returns The 32 key bytes, or null when the text is neither form of 32 bytes.
 */
export function parseSecretsKey(text: string): Buffer | null {
  const raw = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(raw)) return Buffer.from(raw, 'hex');
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(raw)) {
    const key = Buffer.from(raw, 'base64');
    if (key.length === SECRETS_KEY_BYTES) return key;
  }
  return null;
}

function secretsKey(env: NodeJS.ProcessEnv, name: string): Buffer | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  const key = parseSecretsKey(raw);
  // The value is a secret: the message gives its length, never the value.
  if (!key) {
    throw new ConfigError(
      `${name} must be ${SECRETS_KEY_BYTES} bytes written as 64 hex digits or base64 (e.g. "openssl rand -base64 32"); got ${raw.length} characters.`,
    );
  }
  return key;
}

/** `TRUST_PROXY` as Express takes it (https://expressjs.com/en/guide/behind-proxies.html). */
function trustProxy(raw: string | undefined): boolean | number | string {
  if (raw === undefined || raw === '' || raw === 'false') return false;
  if (/^\d+$/.test(raw)) return Number(raw);
  if (raw === 'true') throw new ConfigError('TRUST_PROXY=true would trust any X-Forwarded-For; give the number of proxies or their addresses.');
  return raw;
}

/**
 * The server's and worker's own requirement beyond {@link loadConfig}: with PostgreSQL (a
 * production set-up) links in responses and in what is stored or sent to pass holders must not
 * be derived from a request's `Host` header, which any client can forge.
 * @throws ConfigError when `DATABASE_URL` is set and `PUBLIC_BASE_URL` is not.
 */
export function requirePublicBaseUrl(config: Config): void {
  if (config.databaseUrl && !config.publicBaseUrl) {
    throw new ConfigError(
      'PUBLIC_BASE_URL is required with DATABASE_URL (e.g. https://wallet.example.com): links must not be built from the Host header a client sends.',
    );
  }
}

/** Apple pass type identifiers: `pass.` and dot-separated reverse-DNS labels. */
const APPLE_PASS_TYPE_ID = /^pass(\.[A-Za-z0-9-]+)+$/;

/**
 * `WEB_CONCURRENCY`: 1 to 64 server processes; by default the CPUs Node may use
 * (`os.availableParallelism()`) with PostgreSQL, 1 on the embedded database.
 * @throws ConfigError when more than one is asked for on the embedded database.
 */
function webConcurrency(env: NodeJS.ProcessEnv, databaseUrl: string | undefined): number {
  const processes = integer(env, 'WEB_CONCURRENCY', databaseUrl ? availableParallelism() : 1, 1, 64);
  if (processes > 1 && !databaseUrl) {
    throw new ConfigError(`WEB_CONCURRENCY=${processes} needs DATABASE_URL: the embedded database belongs to one process.`);
  }
  return processes;
}

/**
 * Reads the configuration from environment variables.
 * @param env Usually `process.env`.
 * @returns A complete {@link Config} with defaults applied.
 * @throws ConfigError naming the first variable with an unusable value.
 */
export function loadConfig(env: NodeJS.ProcessEnv): Config {
  const logLevel = (env.LOG_LEVEL || 'info') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${env.LOG_LEVEL}".`);
  }
  const applePassTypeId = env.APPLE_PASS_TYPE_ID || 'pass.dev.wallet-pass-service';
  if (!APPLE_PASS_TYPE_ID.test(applePassTypeId)) {
    throw new ConfigError(`APPLE_PASS_TYPE_ID must look like pass.com.example.loyalty, got "${applePassTypeId}".`);
  }
  const databaseUrl = url(env, 'DATABASE_URL', ['postgresql:', 'postgres:']);
  const publicBaseUrl = url(env, 'PUBLIC_BASE_URL', ['http:', 'https:']);
  const googleWalletCallbacks = boolean(env, 'GOOGLE_WALLET_CALLBACKS', false);
  if (googleWalletCallbacks && !publicBaseUrl?.startsWith('https://')) {
    throw new ConfigError('GOOGLE_WALLET_CALLBACKS=true needs an https PUBLIC_BASE_URL that Google can reach (e.g. https://wallet.example.com).');
  }
  const headersTimeoutMs = integer(env, 'HEADERS_TIMEOUT_MS', 10_000, 100, 600_000);
  const outboundTimeoutMs = integer(env, 'OUTBOUND_TIMEOUT_MS', DEFAULT_OUTBOUND_TIMEOUT_MS, 100, 60_000);
  const requestTimeoutMs = integer(env, 'REQUEST_TIMEOUT_MS', 30_000, 100, 3_600_000);
  if (headersTimeoutMs > requestTimeoutMs) {
    throw new ConfigError(`HEADERS_TIMEOUT_MS (${headersTimeoutMs}) must not exceed REQUEST_TIMEOUT_MS (${requestTimeoutMs}).`);
  }
  return {
    port: integer(env, 'PORT', 3000, 0, 65535),
    host: env.HOST || '127.0.0.1',
    dataDir: resolve(env.DATA_DIR || './data'),
    databaseUrl,
    publicBaseUrl,
    adminToken: env.ADMIN_TOKEN || undefined,
    logLevel,
    validateResponses: boolean(env, 'VALIDATE_RESPONSES', false),
    rateLimitPerSecond: integer(env, 'RATE_LIMIT_PER_SECOND', 10, 0, 1_000_000),
    publishableRateLimitPerMinute: integer(env, 'PUBLISHABLE_RATE_LIMIT_PER_MINUTE', 30, 0, 1_000_000),
    bodyLimitBytes: integer(env, 'BODY_LIMIT_BYTES', 1024 * 1024, 1024, 100 * 1024 * 1024),
    shutdownTimeoutMs: integer(env, 'SHUTDOWN_TIMEOUT_MS', 10_000, 0, 600_000),
    headersTimeoutMs,
    requestTimeoutMs,
    authFailuresPerMinute: integer(env, 'AUTH_FAILURES_PER_MINUTE', 20, 0, 1_000_000),
    trustProxy: trustProxy(env.TRUST_PROXY),
    secretsKey: secretsKey(env, 'SECRETS_KEY'),
    secretsKeyPrevious: secretsKey(env, 'SECRETS_KEY_PREVIOUS'),
    applePassTypeId,
    appleAllowDevelopmentCertificates: boolean(env, 'APPLE_ALLOW_DEVELOPMENT_CERTIFICATES', databaseUrl === undefined),
    imageFetchAllowPrivate: boolean(env, 'IMAGE_FETCH_ALLOW_PRIVATE', false),
    apnsUrl: url(env, 'APNS_URL', ['https:']) ?? 'https://api.push.apple.com',
    webhookAllowPrivate: boolean(env, 'WEBHOOK_ALLOW_PRIVATE', false),
    webhookRetryBaseMs: integer(env, 'WEBHOOK_RETRY_BASE_MS', 30_000, 10, 3_600_000),
    webhookRetryWindowMs: integer(env, 'WEBHOOK_RETRY_WINDOW_MS', 86_400_000, 1000, 7 * 86_400_000),
    outboundTimeoutMs,
    webhookTimeoutMs: integer(env, 'WEBHOOK_TIMEOUT_MS', outboundTimeoutMs, 100, 60_000),
    webhookDisableAfterFailures: integer(env, 'WEBHOOK_DISABLE_AFTER_FAILURES', 5, 1, 1000),
    auditRetentionDays: integer(env, 'AUDIT_RETENTION_DAYS', DEFAULT_AUDIT_RETENTION_DAYS, 1, 100_000),
    passBatchChunkSize: integer(env, 'PASS_BATCH_CHUNK_SIZE', 1000, 1, 10_000),
    webConcurrency: webConcurrency(env, databaseUrl),
    databasePoolSize: integer(env, 'DATABASE_POOL_SIZE', 10, 1, 1000),
    googleWalletApiUrl: url(env, 'GOOGLE_WALLET_API_URL', ['http:', 'https:']) ?? 'https://walletobjects.googleapis.com/walletobjects/v1',
    googleOauthTokenUrl: url(env, 'GOOGLE_OAUTH_TOKEN_URL', ['http:', 'https:']) ?? 'https://oauth2.googleapis.com/token',
    googleSaveOrigins: origins(env, 'GOOGLE_SAVE_ORIGINS'),
    googleWalletRequestsPerSecond: integer(env, 'GOOGLE_WALLET_REQUESTS_PER_SECOND', 20, 2, 10_000),
    googleWalletCallbacks,
    googleWalletCallbackKeysUrl: url(env, 'GOOGLE_WALLET_CALLBACK_KEYS_URL', ['http:', 'https:']) ?? GOOGLE_WALLET_CALLBACK_KEYS_URL,
    holderPageBadgesDir: env.HOLDER_PAGE_BADGES_DIR ? resolve(env.HOLDER_PAGE_BADGES_DIR) : null,
    sessionIdleTimeoutMinutes: integer(env, 'SESSION_IDLE_TIMEOUT_MINUTES', 30, 1, 7 * 24 * 60),
    sessionAbsoluteTimeoutHours: integer(env, 'SESSION_ABSOLUTE_TIMEOUT_HOURS', 12, 1, 24 * 90),
    smtpUrl: url(env, 'SMTP_URL', ['smtp:', 'smtps:']),
    smtpFrom: env.SMTP_FROM || undefined,
  };
}
