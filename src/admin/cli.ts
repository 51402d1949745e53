/**
 * `npm run -s admin -- <command>` (installed as a package: `wallet-pass-admin <command>`, from
 * bin/wallet-pass-admin.js): the operator's command line over the administration API
 * (`/admin/v1`), built on openapi-fetch with the generated `paths` type. `-s` keeps npm's own
 * header lines out of the output, so that `--json` output can be piped (`| jq`).
 *
 * Commands (add `--json` to print exactly one JSON document):
 *   account create --name <name>           → { "account": { "id", "name" }, "token": "wps_…" }
 *   account list                           → { "accounts": [ { "id", "name", "createdAt" } ] }
 *   token create --account <id> [--name n] → { "token": "wps_…", "id" }
 *   token revoke <id>                      → { "id", "revokedAt" }
 *   entity create --account <id> --name <name> → { "entity": { "id", "name" } }
 *   entity list --account <id>             → { "entities": [ { "id", "name" } ] }
 *   apple set --account <id> --pass-type-id <id> --team-id <id> --organization <name>
 *             (--certificate <pem file> --key <pem file> [--key-passphrase <p>] | --p12 <file> [--p12-passphrase <p>])
 *             --wwdr <pem file>               → { "appleConfiguration": { … } }
 *   apple show --account <id> --pass-type-id <id>, apple list --account <id>, apple delete …
 *   apple dev-certificate --account <id> [--pass-type-id <id>] [--team-id <id>] [--organization <name>] [--out <dir>]
 *                                          → throw-away development credentials, written to <dir> and set;
 *                                            the passes' organizationName is the account's name unless
 *                                            --organization gives one
 *   google set --account <id> --issuer-id <digits> --key <service account JSON file>
 *                                          → { "googleConfiguration": { "issuerId", "clientEmail", … } }
 *   google show --account <id>, google delete --account <id>
 *   backup --out <file>                    → { "backup": { "file", "bytes", "secretFiles": [ … ] } }
 *                                            (the running embedded server's database, through
 *                                            getDatabaseBackup, and DATA_DIR's secret files)
 *   restore --in <file>                    → { "restore": { "dataDir", "createdAt", "secretFiles" } }
 *                                            (into an empty DATA_DIR; no server needed)
 *   secrets rotate [--batch-size n] [--pause-ms ms]
 *                                          → { "rotation": { "rotated": { … }, "remaining": 0 } }
 *                                            (opens the database itself: src/admin/secretsRotation.ts)
 *
 * Environment: `ADMIN_URL`, else `http://<HOST>:<PORT>` from the server's own variables
 * (defaults 127.0.0.1 and 3000; src/config.ts `adminApiUrl`); the token from `ADMIN_TOKEN`, else
 * `<DATA_DIR>/admin-token` (DATA_DIR default ./data). Exit codes: 0 success, 1 the API refused or
 * could not be reached (its error detail, or the URL tried and why, is printed in one line), 2 bad
 * arguments (usage is printed) or an unusable ADMIN_URL/PORT (the variable is named). When
 * the reader of the output goes away early (`| head -c1`), the CLI stops quietly with 0.
 *
 * @module admin/cli
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { inspect, parseArgs } from 'node:util';
import createClient from 'openapi-fetch';
import type { paths } from '../../generated/api.d.ts';
import { adminApiUrl, ConfigError } from '../config.ts';
import { adminTokenPath } from '../security/adminToken.ts';
import { createDevelopmentCertificates } from '../wallet/apple/developmentCertificates.ts';
import { type ChainedEvent, verifyChains } from '../domain/audit/auditVerify.ts';

/** An event of the administration API's NDJSON export, as the chain verifier reads it. */
function chainedEventOf(event: { id: string; attributes: Record<string, unknown> & { actor: Record<string, unknown> } }): ChainedEvent {
  const a = event.attributes;
  return {
    id: event.id,
    accountId: a.accountId as string,
    occurredAt: new Date(a.occurredAt as string),
    actorType: a.actor.type as ChainedEvent['actorType'],
    actorId: a.actor.id as string | null,
    actorName: a.actor.name as string | null,
    actorKind: a.actor.kind as string | null,
    channel: a.channel as string,
    operationId: a.operationId as string,
    resourceType: a.resourceType as string,
    resourceId: a.resourceId as string | null,
    changes: a.changes as ChainedEvent['changes'],
    requestId: a.requestId as string | null,
    clientAddress: a.clientAddress as string | null,
    userAgent: a.userAgent as string | null,
    outcome: a.outcome as ChainedEvent['outcome'],
    status: a.status as number | null,
    seq: a.sequence as number,
    prevHash: a.prevHash as string,
    hash: a.hash as string,
  };
}

export const USAGE = `Usage: npm run -s admin -- <command> [--json]
       wallet-pass-admin <command> [--json]     (installed as a package)

Commands:
  account create --name <name>                Create an account and its first API key
  account list                                List accounts
  token create --account <accountId> [--name <label>] [--kind secret|restricted|publishable]
            [--scopes passes:read,passes:write,…] [--templates <id,…>] [--entities <id,…>]
            [--expires-at <RFC 3339>] [--cidrs <range,…>] [--origins <https://…,…>]
                                              Create an API key (shown once): secret (every
                                              scope, the default), restricted (its scopes and
                                              limits) or publishable (wps_pk_…: issues passes from
                                              --templates, used from --origins)
  token list --account <accountId>            List an account's keys: kind, scopes, creation, last use
  token revoke <tokenId>                      Revoke an API key
  audit verify                                Verify every account's audit hash chain (reads the
                                              events through the administration API); exit 1 when
                                              one is broken
  entity create --account <accountId> --name <name>
                                              Create an entity
  entity list --account <accountId>           List an account's entities
  apple set --account <accountId> --pass-type-id <pass.…> --team-id <TEAMID> --organization <name>
            (--certificate <pem file> --key <pem file> [--key-passphrase <p>] | --p12 <file> [--p12-passphrase <p>])
            --wwdr <pem file>                 Set (or replace) an account's Apple Wallet credentials
  apple show --account <accountId> --pass-type-id <pass.…>
  apple list --account <accountId>
  apple delete --account <accountId> --pass-type-id <pass.…>
  apple dev-certificate --account <accountId> [--pass-type-id <pass.…>] [--team-id <TEAMID>]
            [--organization <name>] [--out <dir>]
                                              Make throw-away development credentials (a root, a
                                              WWDR-like intermediate and a Pass Type ID
                                              certificate), write them to <dir> (default
                                              <DATA_DIR>/dev-apple) and set them for the account.
                                              Their passes open in tooling, not on an iPhone.
                                              The passes' organization name (shown with their
                                              notifications) is the account's name unless
                                              --organization gives one.
  google set --account <accountId> --issuer-id <digits> --key <service account JSON key file>
                                              Set (or replace) an account's Google Wallet credentials
  google show --account <accountId>
  google delete --account <accountId>
  backup --out <file>                         Back up the running embedded server's database
                                              (consistent, while it runs) and DATA_DIR's secret
                                              files into <file> (mode 0600). PostgreSQL: pg_dump.
  restore --in <file>                         Restore a backup into DATA_DIR, which must be empty
  secrets rotate [--batch-size <n>] [--pause-ms <ms>]
                                              Re-seal every stored secret with SECRETS_KEY, opening
                                              old ones with SECRETS_KEY_PREVIOUS; resumable. Opens
                                              the database (DATABASE_URL or DATA_DIR) itself: stop
                                              an embedded server first. Default batch 100.

Environment: ADMIN_URL (default http://<HOST>:<PORT>, the server's own HOST and PORT, defaults
127.0.0.1 and 3000), ADMIN_TOKEN (default: read <DATA_DIR>/admin-token, DATA_DIR default ./data).`;

/** Bad command-line arguments (exit code 2). */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** The API refused the request or could not be reached (exit code 1). */
export class ApiError extends Error {
  override name = 'ApiError';
}

type Client = ReturnType<typeof createClient<paths>>;
type Output = { json: unknown; text: string };

interface ErrorBody {
  errors?: { detail?: string; title?: string }[];
}

function unwrap<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.data !== undefined) return result.data;
  const body = result.error as ErrorBody | undefined;
  const details = body?.errors?.map((e) => e.detail ?? e.title).filter(Boolean) ?? [];
  throw new ApiError(details.length ? details.join('\n') : `The API answered ${result.response.status} at ${result.response.url}.`);
}

function required(value: string | undefined, flag: string): string {
  if (!value) throw new UsageError(`--${flag} is required.`);
  return value;
}

/** Fetches every page of an administration list. */
async function allPages<T>(fetchPage: (page: number) => Promise<{ data: T[]; meta: { totalPages: number } }>): Promise<T[]> {
  const items: T[] = [];
  for (let page = 1; ; page++) {
    const result = await fetchPage(page);
    items.push(...result.data);
    if (page >= result.meta.totalPages) return items;
  }
}

/**
 * The name of an account, read from the administration list (the API has no single-account read).
 * @throws ApiError, with the API's own wording, when no account has the id.
 */
async function accountName(client: Client, accountId: string): Promise<string> {
  const accounts = await allPages((page) => client.GET('/admin/v1/accounts', { params: { query: { page, perPage: 100 } } }).then(unwrap));
  const account = accounts.find((a) => a.id === accountId.toLowerCase());
  if (!account) throw new ApiError(`No account with id ${accountId} exists.`);
  return account.attributes.name;
}

/** The command line's flags. */
const OPTIONS = {
  name: { type: 'string' },
  account: { type: 'string' },
  'pass-type-id': { type: 'string' },
  'team-id': { type: 'string' },
  organization: { type: 'string' },
  certificate: { type: 'string' },
  key: { type: 'string' },
  'key-passphrase': { type: 'string' },
  p12: { type: 'string' },
  'p12-passphrase': { type: 'string' },
  wwdr: { type: 'string' },
  'issuer-id': { type: 'string' },
  out: { type: 'string' },
  in: { type: 'string' },
  'batch-size': { type: 'string' },
  'pause-ms': { type: 'string' },
  kind: { type: 'string' },
  scopes: { type: 'string' },
  templates: { type: 'string' },
  entities: { type: 'string' },
  'expires-at': { type: 'string' },
  cidrs: { type: 'string' },
  origins: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

type ParsedValues = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true; strict: true }>>['values'];

/** What a command gets: the parsed flags, the positional arguments after the command, the client maker and the environment. */
interface CommandInput {
  values: ParsedValues;
  rest: string[];
  connect: () => Promise<Client>;
  env: NodeJS.ProcessEnv;
  /** Writes a progress line (to stderr), for commands that run long. */
  progress: (line: string) => void;
}

/** A whole number flag, at least `min`. @throws UsageError otherwise. */
function wholeNumber(value: string | undefined, flag: string, fallback: number, min: number): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) < min) throw new UsageError(`--${flag} must be a whole number of at least ${min}.`);
  return Number(value);
}

/** Every command, by its two words (`npm run -s admin -- --help` lists them). */
const COMMANDS: Record<string, (input: CommandInput) => Promise<Output>> = {
  'account create': async ({ values, connect }) => {
    const name = required(values.name, 'name');
    const client = await connect();
    const data = unwrap(await client.POST('/admin/v1/accounts', { body: { account: { name } } }));
    const token = data.included?.[0]?.attributes.token;
    return {
      json: { account: { id: data.data.id, name: data.data.attributes.name }, token },
      text: `Created account ${data.data.attributes.name} (${data.data.id}).\nAPI key (shown once, store it now): ${token}`,
    };
  },
  'account list': async ({ connect }) => {
    const client = await connect();
    const accounts = await allPages((page) => client.GET('/admin/v1/accounts', { params: { query: { page, perPage: 100 } } }).then(unwrap));
    const list = accounts.map((a) => ({ id: a.id, name: a.attributes.name, createdAt: a.attributes.createdAt }));
    return { json: { accounts: list }, text: list.map((a) => `${a.id}  ${a.name}  ${a.createdAt}`).join('\n') || 'No accounts.' };
  },
  'token create': async ({ values, connect }) => {
    const accountId = required(values.account, 'account');
    const list = (value: string | undefined) =>
      value === undefined
        ? undefined
        : value
            .split(',')
            .map((item) => item.trim())
            .filter(Boolean);
    const kind = values.kind as 'secret' | 'restricted' | 'publishable' | undefined;
    if (kind !== undefined && !['secret', 'restricted', 'publishable'].includes(kind))
      throw new UsageError('--kind must be secret, restricted or publishable.');
    const apiToken = Object.fromEntries(
      Object.entries({
        name: values.name,
        kind,
        scopes: list(values.scopes),
        passTemplates: list(values.templates),
        entities: list(values.entities),
        expiresAt: values['expires-at'],
        allowedCidrs: list(values.cidrs),
        allowedOrigins: list(values.origins),
      }).filter(([, value]) => value !== undefined),
    );
    const client = await connect();
    const data = unwrap(
      await client.POST('/admin/v1/accounts/{accountId}/tokens', {
        params: { path: { accountId } },
        body: Object.keys(apiToken).length ? { apiToken: apiToken as never } : {},
      }),
    );
    const created = data.data.attributes;
    return {
      json: { token: created.token, id: data.data.id },
      text: `Created ${created.kind ?? 'secret'} API key ${data.data.id}.\nAPI key (shown once, store it now): ${created.token}`,
    };
  },
  'token list': async ({ values, connect }) => {
    const accountId = required(values.account, 'account');
    const client = await connect();
    const keys = await allPages((page) =>
      client.GET('/admin/v1/accounts/{accountId}/tokens', { params: { path: { accountId }, query: { page, perPage: 100 } } }).then(unwrap),
    );
    const list = keys.map(({ id, attributes: a }) => ({
      id,
      name: a.name,
      prefix: a.prefix,
      kind: a.kind,
      scopes: a.scopes,
      createdAt: a.createdAt,
      lastUsedAt: a.lastUsedAt,
      revokedAt: a.revokedAt,
      expiresAt: a.expiresAt,
    }));
    return {
      json: { tokens: list },
      text:
        list
          .map(
            (k) =>
              `${k.id}  ${k.prefix}…  ${k.kind}  ${k.name ?? '(no name)'}  created ${k.createdAt}  last used ${k.lastUsedAt ?? 'never'}` +
              `${k.revokedAt ? `  revoked ${k.revokedAt}` : ''}${k.expiresAt ? `  expires ${k.expiresAt}` : ''}\n    scopes: ${(k.scopes ?? []).join(' ')}`,
          )
          .join('\n') || 'No API keys.',
    };
  },
  'audit verify': async ({ connect }) => {
    const client = await connect();
    const events: ChainedEvent[] = [];
    let cursor: string | undefined;
    do {
      const { data, response } = await client.GET('/admin/v1/audit-events', {
        params: { query: { format: 'ndjson', limit: 10_000, ...(cursor ? { cursor } : {}) } },
        parseAs: 'text',
      });
      if (data === undefined) throw new ApiError(`The API answered ${response.status} at ${response.url}.`);
      for (const line of String(data).split('\n').filter(Boolean)) events.push(chainedEventOf(JSON.parse(line)));
      cursor = /[?&]cursor=([^&>]+)/.exec(response.headers.get('link') ?? '')?.[1];
    } while (cursor);
    const verdicts = verifyChains(events);
    const broken = verdicts.filter((v) => v.broken);
    const text = verdicts
      .map((v) => `${v.accountId}  events ${v.firstSeq}–${v.lastSeq}  ${v.broken ? `BROKEN at ${v.broken.seq}: ${v.broken.reason}` : 'verified'}`)
      .join('\n');
    if (broken.length) throw new ApiError(`${text}\n${broken.length} audit chain(s) broken.`);
    return { json: { chains: verdicts }, text: text || 'No audit events.' };
  },
  'token revoke': async ({ rest, connect }) => {
    if (rest.length !== 1) throw new UsageError('token revoke takes exactly one token id.');
    const client = await connect();
    const data = unwrap(await client.POST('/admin/v1/tokens/{tokenId}/revoke', { params: { path: { tokenId: rest[0]! } } }));
    return { json: { id: data.data.id, revokedAt: data.data.attributes.revokedAt }, text: `Revoked API key ${data.data.id}.` };
  },
  'entity create': async ({ values, connect }) => {
    const accountId = required(values.account, 'account');
    const name = required(values.name, 'name');
    const client = await connect();
    const data = unwrap(
      await client.POST('/admin/v1/accounts/{accountId}/entities', {
        params: { path: { accountId } },
        body: { entity: { name } },
      }),
    );
    return {
      json: { entity: { id: data.data.id, name: data.data.attributes.name } },
      text: `Created entity ${data.data.attributes.name} (${data.data.id}).`,
    };
  },
  'entity list': async ({ values, connect }) => {
    const accountId = required(values.account, 'account');
    const client = await connect();
    const entities = await allPages((page) =>
      client.GET('/admin/v1/accounts/{accountId}/entities', { params: { path: { accountId }, query: { page, perPage: 100 } } }).then(unwrap),
    );
    const list = entities.map((e) => ({ id: e.id, name: e.attributes.name }));
    return { json: { entities: list }, text: list.map((e) => `${e.id}  ${e.name}`).join('\n') || 'No entities.' };
  },
  'apple set': async ({ values, connect }) => {
    const accountId = required(values.account, 'account');
    const passTypeIdentifier = required(values['pass-type-id'], 'pass-type-id');
    if (Boolean(values.p12) === Boolean(values.certificate || values.key)) throw new UsageError('Give --certificate and --key, or --p12.');
    const read = (path: string) => readFile(path, 'utf8');
    const appleConfiguration = {
      teamIdentifier: required(values['team-id'], 'team-id'),
      organizationName: required(values.organization, 'organization'),
      wwdrCertificate: await read(required(values.wwdr, 'wwdr')),
      ...(values.p12
        ? { p12: (await readFile(values.p12)).toString('base64'), p12Passphrase: values['p12-passphrase'] ?? '' }
        : {
            certificate: await read(required(values.certificate, 'certificate')),
            privateKey: await read(required(values.key, 'key')),
            ...(values['key-passphrase'] !== undefined ? { privateKeyPassphrase: values['key-passphrase'] } : {}),
          }),
    };
    const client = await connect();
    const data = unwrap(
      await client.PUT('/admin/v1/accounts/{accountId}/apple-configurations/{passTypeIdentifier}', {
        params: { path: { accountId, passTypeIdentifier } },
        body: { appleConfiguration },
      }),
    );
    return appleOutput(data.data, 'Set');
  },
  'apple show': async ({ values, connect }) => {
    const accountId = required(values.account, 'account');
    const passTypeIdentifier = required(values['pass-type-id'], 'pass-type-id');
    const client = await connect();
    const data = unwrap(
      await client.GET('/admin/v1/accounts/{accountId}/apple-configurations/{passTypeIdentifier}', { params: { path: { accountId, passTypeIdentifier } } }),
    );
    return appleOutput(data.data, 'Apple configuration');
  },
  'apple list': async ({ values, connect }) => {
    const accountId = required(values.account, 'account');
    const client = await connect();
    const data = unwrap(await client.GET('/admin/v1/accounts/{accountId}/apple-configurations', { params: { path: { accountId } } }));
    const list = data.data.map((c) => c.attributes);
    return {
      json: { appleConfigurations: list },
      text:
        list.map((c) => `${c.passTypeIdentifier}  team ${c.teamIdentifier}  until ${c.certificate.notAfter}${c.isDefault ? '  (default)' : ''}`).join('\n') ||
        'No Apple configurations.',
    };
  },
  'apple delete': async ({ values, connect }) => {
    const accountId = required(values.account, 'account');
    const passTypeIdentifier = required(values['pass-type-id'], 'pass-type-id');
    const client = await connect();
    const result = await client.DELETE('/admin/v1/accounts/{accountId}/apple-configurations/{passTypeIdentifier}', {
      params: { path: { accountId, passTypeIdentifier } },
    });
    if (result.response.status !== 204) unwrap(result);
    return { json: { deleted: passTypeIdentifier }, text: `Deleted the Apple configuration of ${passTypeIdentifier}.` };
  },
  'apple dev-certificate': async ({ values, connect, env }) => {
    const accountId = required(values.account, 'account');
    const passTypeIdentifier = values['pass-type-id'] ?? 'pass.dev.wallet-pass-service';
    const teamIdentifier = values['team-id'] ?? 'DEVTEAM123';
    const dir = resolve(values.out ?? join(env.DATA_DIR || './data', 'dev-apple'));
    const client = await connect();
    // Apple shows organizationName with the pass's notifications and on the lock screen
    // (https://developer.apple.com/documentation/walletpasses/pass): the account's name.
    const organizationName = values.organization ?? (await accountName(client, accountId));
    const chain = createDevelopmentCertificates({ passTypeIdentifier, teamIdentifier, organizationName });
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'root.pem'), chain.rootCertificatePem);
    await writeFile(join(dir, 'wwdr.pem'), chain.wwdrCertificatePem);
    await writeFile(join(dir, 'certificate.pem'), chain.certificatePem);
    await writeFile(join(dir, 'private-key.pem'), chain.privateKeyPem, { mode: 0o600 });
    const data = unwrap(
      await client.PUT('/admin/v1/accounts/{accountId}/apple-configurations/{passTypeIdentifier}', {
        params: { path: { accountId, passTypeIdentifier } },
        body: {
          appleConfiguration: {
            teamIdentifier,
            organizationName,
            certificate: chain.certificatePem,
            privateKey: chain.privateKeyPem,
            wwdrCertificate: chain.wwdrCertificatePem,
          },
        },
      }),
    );
    const output = appleOutput(data.data, 'Set development');
    return {
      json: { ...(output.json as object), files: { directory: dir, rootCertificate: join(dir, 'root.pem') } },
      text: `${output.text}\nDevelopment credentials written to ${dir} (root.pem verifies the passes' signatures; private-key.pem is mode 0600). Passes signed with them open in tooling, not on an iPhone.`,
    };
  },
  'google set': async ({ values, connect }) => {
    const accountId = required(values.account, 'account');
    const issuerId = required(values['issuer-id'], 'issuer-id');
    const serviceAccountKey = await readFile(required(values.key, 'key'), 'utf8');
    const client = await connect();
    const data = unwrap(
      await client.PUT('/admin/v1/accounts/{accountId}/google-configuration', {
        params: { path: { accountId } },
        body: { googleConfiguration: { issuerId, serviceAccountKey } },
      }),
    );
    return googleOutput(data.data.attributes, 'Set');
  },
  'google show': async ({ values, connect }) => {
    const accountId = required(values.account, 'account');
    const client = await connect();
    const data = unwrap(await client.GET('/admin/v1/accounts/{accountId}/google-configuration', { params: { path: { accountId } } }));
    return googleOutput(data.data.attributes, 'Google configuration:');
  },
  backup: async ({ values, connect, env }) => {
    const file = resolve(required(values.out, 'out'));
    const client = await connect();
    const result = await client.GET('/admin/v1/database-backup', { parseAs: 'arrayBuffer' });
    const archive = new Uint8Array(unwrap(result) as ArrayBuffer);
    const { writeBackupFile } = await import('./backupFile.ts'); // loads the database driver only for the commands that use it
    const secretFiles = await writeBackupFile(file, archive, resolve(env.DATA_DIR || './data'), new Date()).catch((error: NodeJS.ErrnoException) => {
      throw new ApiError(error.code === 'EEXIST' ? `${file} exists already; give another --out.` : `Could not write ${file}: ${error.message}`);
    });
    return {
      json: { backup: { file, bytes: archive.byteLength, secretFiles } },
      text: `Backed up the database (${archive.byteLength} bytes) and ${secretFiles.join(', ') || 'no secret files'} to ${file}. Keep it as secret as SECRETS_KEY.`,
    };
  },
  restore: async ({ values, env }) => {
    const file = resolve(required(values.in, 'in'));
    const dataDir = resolve(env.DATA_DIR || './data');
    const { BackupFileError, restoreBackupFile } = await import('./backupFile.ts');
    const restored = await restoreBackupFile(file, dataDir).catch((error: Error) => {
      throw error instanceof BackupFileError ? new ApiError(error.message) : error;
    });
    return {
      json: { restore: { dataDir, createdAt: restored.createdAt, secretFiles: restored.files } },
      text: `Restored the backup of ${restored.createdAt} into ${dataDir} (${restored.files.join(', ') || 'no secret files'}).`,
    };
  },
  'secrets rotate': async ({ values, env, progress }) => {
    const batchSize = wholeNumber(values['batch-size'], 'batch-size', 100, 1);
    const pauseMs = wholeNumber(values['pause-ms'], 'pause-ms', 0, 0);
    const { rotateSecretsOf } = await import('./secretsRotation.ts');
    const report = await rotateSecretsOf(env, { batchSize, pauseMs, progress }).catch((error: Error) => {
      throw new ApiError(error.message || inspect(error, { depth: 3 }));
    });
    const total = Object.values(report.rotated).reduce((a, b) => a + b, 0);
    return {
      json: { rotation: report },
      text:
        report.remaining === 0
          ? `Re-sealed ${total} secrets; every stored secret is sealed with SECRETS_KEY. Remove SECRETS_KEY_PREVIOUS and restart.`
          : `Re-sealed ${total} secrets; ${report.remaining} were written with another key meanwhile (a server without the new SECRETS_KEY?): run it again.`,
    };
  },
  'google delete': async ({ values, connect }) => {
    const accountId = required(values.account, 'account');
    const client = await connect();
    const result = await client.DELETE('/admin/v1/accounts/{accountId}/google-configuration', { params: { path: { accountId } } });
    if (result.response.status !== 204) unwrap(result);
    return { json: { deleted: accountId }, text: `Deleted the Google Wallet configuration of account ${accountId}.` };
  },
};

/**
 * Runs one command.
 * @param argv Arguments after `npm run -s admin --`.
 * @param connect Makes the openapi-fetch client; called only once the arguments are known good.
 * @throws UsageError for bad arguments, ApiError when the API refuses.
 */
export async function runCommand(
  argv: string[],
  connect: () => Promise<Client>,
  env: NodeJS.ProcessEnv = {},
  progress: (line: string) => void = () => {},
): Promise<Output> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, strict: true, options: OPTIONS });
  const [resource, action, ...rest] = positionals;
  const command = `${resource ?? ''} ${action ?? ''}`.trim();
  if (command !== 'token revoke' && rest.length) throw new UsageError(`Unexpected argument: ${rest[0]}`);
  const run = COMMANDS[command];
  if (!run) throw new UsageError(command ? `Unknown command: ${command}` : 'No command given.');
  return run({ values, rest, connect, env, progress });
}

type AppleConfigurationResource = {
  id: string;
  attributes: {
    teamIdentifier: string;
    isDefault: boolean;
    certificate: { notAfter: string; expiresSoon: boolean };
    wwdrCertificate: { isAppleWwdrG4: boolean };
  };
};

/** What the `apple` commands print of a configuration. */
function appleOutput(configuration: AppleConfigurationResource, verb: string): Output {
  const { attributes } = configuration;
  const notes = [
    attributes.isDefault ? 'the default of the account' : null,
    attributes.wwdrCertificate.isAppleWwdrG4 ? null : 'development certificate: passes open in tooling only',
    attributes.certificate.expiresSoon ? 'EXPIRES WITHIN 30 DAYS' : null,
  ].filter(Boolean);
  return {
    json: { appleConfiguration: configuration.attributes },
    text: `${verb} ${configuration.id} (team ${attributes.teamIdentifier}), certificate valid until ${attributes.certificate.notAfter}${notes.length ? ` — ${notes.join('; ')}` : ''}.`,
  };
}

/** What the `google` commands print of a configuration (never the key: the API does not return it). */
function googleOutput(attributes: { issuerId: string; clientEmail: string; privateKeyId: string | null }, verb: string): Output {
  return {
    json: { googleConfiguration: attributes },
    text: `${verb} issuer ${attributes.issuerId}, service account ${attributes.clientEmail}${attributes.privateKeyId ? ` (key ${attributes.privateKeyId})` : ''}.`,
  };
}

/** Why a connection failed, in one line: the system error of `fetch`'s cause (`connect ECONNREFUSED 127.0.0.1:3000`). */
function connectionFailure(error: unknown): string {
  const cause = (error as { cause?: unknown }).cause as (Error & { code?: string; errors?: Error[] }) | undefined;
  const reason = cause?.errors?.[0] ?? cause;
  return reason?.message || (error as Error).message;
}

/**
 * `fetch` for the API client: a server that cannot be reached is reported with the URL that was
 * tried and where that URL came from (undici's own error says only "fetch failed").
 * @throws ApiError when no connection could be made.
 */
async function fetchNamingTheUrl(request: Request): Promise<Response> {
  try {
    return await fetch(request);
  } catch (error) {
    throw new ApiError(
      `Could not reach the administration API at ${request.url} (${connectionFailure(error)}). Is the server running? ` +
        'The CLI uses ADMIN_URL, else the HOST and PORT the server reads.',
    );
  }
}

/** Reads the admin token: ADMIN_TOKEN, else the file the server generated in DATA_DIR. */
async function adminToken(env: NodeJS.ProcessEnv): Promise<string> {
  if (env.ADMIN_TOKEN) return env.ADMIN_TOKEN;
  const path = adminTokenPath(resolve(env.DATA_DIR || './data'));
  try {
    return (await readFile(path, 'utf8')).trim();
  } catch {
    throw new ApiError(`No ADMIN_TOKEN set and no token file at ${path}; start the server once or set ADMIN_TOKEN.`);
  }
}

/**
 * The CLI: parses, runs, prints, and returns the exit code (0, 1 or 2).
 * @param argv Arguments after `npm run -s admin --`.
 * @param env Environment (ADMIN_URL, ADMIN_TOKEN, DATA_DIR).
 */
export async function main(argv: string[], env: NodeJS.ProcessEnv, out = process.stdout, err = process.stderr): Promise<number> {
  const json = argv.includes('--json');
  if (argv.includes('--help') || argv.includes('-h')) {
    out.write(`${USAGE}\n`);
    return 0;
  }
  let baseUrl: string | undefined;
  try {
    const result = await runCommand(
      argv,
      async () => {
        baseUrl = adminApiUrl(env);
        return createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${await adminToken(env)}` }, fetch: fetchNamingTheUrl });
      },
      env,
      (line) => err.write(`${line}\n`),
    );
    out.write(`${json ? JSON.stringify(result.json) : result.text}\n`);
    return 0;
  } catch (error) {
    const usage = error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
    if (usage) {
      err.write(`${(error as Error).message}\n\n${USAGE}\n`);
      return 2;
    }
    const message =
      error instanceof ApiError || error instanceof ConfigError
        ? error.message
        : error instanceof SyntaxError && baseUrl
          ? `The server at ${baseUrl} answered something that is not JSON: is that the Wallet Pass Service (ADMIN_URL, or HOST and PORT)?`
          : (error as Error).message;
    err.write(`${json ? JSON.stringify({ error: message }) : `Error: ${message}`}\n`);
    return error instanceof ConfigError ? 2 : 1;
  }
}

/**
 * Exits at once with 0, printing nothing, when the reader of `stream` has closed its end (the
 * write fails with EPIPE: `wallet-pass-admin account list --json | head -c1`); any other write
 * error is thrown. Node ignores SIGPIPE and reports it as this error instead (Node.js
 * documentation, Signal events: "'SIGPIPE' is ignored by default"), which, unhandled, printed a
 * stack trace.
 */
function exitQuietlyWhenReaderCloses(stream: NodeJS.WriteStream): void {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    process.exit(0);
  });
}

/**
 * Runs the CLI as a process: {@link main} with the process's arguments and environment, its
 * result as the exit code. Called when this file is run (`npm run admin`) and by the package's
 * bin (bin/wallet-pass-admin.js).
 */
export async function runCli(argv = process.argv.slice(2), env = process.env): Promise<void> {
  exitQuietlyWhenReaderCloses(process.stdout);
  exitQuietlyWhenReaderCloses(process.stderr);
  process.exitCode = await main(argv, env);
}

if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith('src/admin/cli.ts')) {
  await runCli();
}
