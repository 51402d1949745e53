/**
 * The one place where failures become HTTP responses: every error — ours, the validator's, the
 * body parser's, Prisma's, or an unexpected one — is answered with a JSON:API error document.
 * Unexpected errors answer 500 with a generic detail; their stack goes to the log only.
 *
 * @module http/errorHandler
 */
import type { ErrorRequestHandler } from 'express';
import { isTransactionContention } from '../db/contention.ts';
import { isDatabaseUnavailable } from '../db/unavailable.ts';
import { ConflictError, DomainError, NotFoundError, type Problem } from '../errors.ts';
import { UPLOAD_LIMIT_BYTES } from '../csv/csvFile.ts';
import { UPLOAD_FIELDS } from './csvUpload.ts';
import { HttpError, httpErrorOf, ServiceUnavailableError } from './errors.ts';

/** A JSON:API error object as sent. */
export interface ErrorObject {
  status: string;
  code: string;
  title: string;
  detail: string;
  source?: { pointer: string } | { parameter: string } | { header: string };
}

interface ValidatorIssue {
  path?: string;
  message?: string;
  errorCode?: string;
}

interface HttpLikeError {
  status?: number;
  statusCode?: number;
  type?: string;
  errors?: ValidatorIssue[];
  code?: string;
  message?: string;
  headers?: Record<string, string>;
}

/** Turns a validator issue path (`/query/perPage`, `/body/a/b`) into a JSON:API source. */
function sourceOf(path: string | undefined): Problem['source'] | undefined {
  if (!path) return undefined;
  const [, location, ...rest] = path.split('/');
  const name = rest.join('/');
  if (location === 'body') return { pointer: name ? `/${name}` : '' };
  if ((location === 'query' || location === 'params' || location === 'path') && name) return { parameter: rest[0]! };
  if (location === 'headers' && name) return { header: rest[0]! };
  return undefined;
}

function describe(issue: ValidatorIssue): string {
  const source = sourceOf(issue.path);
  const subject =
    source && 'parameter' in source
      ? source.parameter
      : source && 'header' in source
        ? source.header
        : source && 'pointer' in source && source.pointer
          ? source.pointer
          : 'request body';
  if (issue.errorCode?.startsWith('additionalProperties')) return `${subject} is not an allowed member.`;
  const message = (issue.message ?? 'is invalid').replace(/^\s*must/, 'must');
  // Messages such as "Unknown query parameter 'x'" already name their subject.
  return /^[A-Z]/.test(message) ? `${message}.`.replace(/\.\.$/, '.') : `${subject} ${message}.`;
}

/**
 * The parse errors of busboy (https://github.com/mscdex/busboy, lib/types/multipart.js and
 * lib/index.js), the multipart parser under multer: what a body that is not a well-formed form
 * gets. They carry no code, only these messages.
 */
const MALFORMED_MULTIPART = /^(Unexpected end of (form|file)|Malformed part header|Malformed content type)$/;

/** An error of express-openapi-validator (or of multer through it) as an {@link HttpError}, or null when `e` is none. */
function validatorError(e: HttpLikeError, operationId?: string): HttpError | null {
  const status = e?.status ?? e?.statusCode;
  if (typeof status !== 'number' || status < 400 || status >= 500 || !Array.isArray(e.errors)) return null;
  const issues = e.errors.length > 0 ? e.errors : [{ message: e.message }];
  switch (status) {
    case 400:
      return new HttpError(
        400,
        'validation_failed',
        'Invalid request',
        issues.map((i) => ({ detail: describe(i), ...(sourceOf(i.path) ? { source: sourceOf(i.path)! } : {}) })),
      );
    case 401:
      return new HttpError(
        401,
        'unauthorized',
        'Authentication required',
        [{ detail: e.message ?? 'Authentication required.', source: { header: 'Authorization' } }],
        { 'WWW-Authenticate': 'Bearer realm="wallet-pass-service"' },
      );
    case 404:
      return httpErrorOf(new NotFoundError('No operation is documented at this path; see /docs.'));
    case 405:
      return new HttpError(
        405,
        'method_not_allowed',
        'Method not allowed',
        [{ detail: `${e.message ?? 'This method is not allowed on this path'}.`.replace(/\.\.$/, '.') }],
        e.headers ?? {},
      );
    case 413: {
      // multer (src/http/csvUpload.ts): a file over the limit, or too many parts.
      const field = operationId ? UPLOAD_FIELDS[operationId] : undefined;
      if (field) {
        return new HttpError(413, 'payload_too_large', 'Request body too large', [
          {
            detail: `The file ${field} is larger than the limit of ${UPLOAD_LIMIT_BYTES} bytes, or the form has too many parts (${e.message ?? 'too large'}).`,
            source: { pointer: `/${field}` },
          },
        ]);
      }
      return new HttpError(413, 'payload_too_large', 'Request body too large', [{ detail: e.message ?? 'The request body is too large.' }]);
    }
    case 415: {
      const field = operationId ? UPLOAD_FIELDS[operationId] : undefined;
      const types = !field
        ? 'application/json'
        : operationId === 'createWalletMessagingBatch'
          ? 'application/json or multipart/form-data'
          : 'multipart/form-data';
      return new HttpError(415, 'unsupported_media_type', 'Unsupported media type', [
        { detail: `Request bodies must be sent as ${types}.`, source: { header: 'Content-Type' } },
      ]);
    }
    default:
      return new HttpError(
        status,
        'invalid_request',
        'Invalid request',
        issues.map((i) => ({ detail: describe(i) })),
      );
  }
}

/** The status {@link errorHandler} answers `err` with (500 for what it does not know). */
export function errorStatus(err: unknown, operationId: string | undefined): number {
  return classify(err, operationId)?.status ?? 500;
}

/**
 * The operations whose body carries a template's images as `data:` URLs (createPassTemplate,
 * updatePassTemplate, previewPassTemplate), by method and path: a body too large for them is
 * refused before the contract's validator has named the operation.
 */
const TEMPLATE_BODY = /^(?:POST \/api\/v1\/pass-templates(?:\/preview)?|PATCH \/api\/v1\/pass-templates\/[^/]+)\/?$/;

/**
 * The 413 of a template body over the limit, pointing at `/passTemplate/images` (what makes a
 * template body large): how many bytes the images may have together once base64 (4 bytes per 3,
 * RFC 4648 §4) and the rest of the body take their share.
 */
function templateBodyTooLarge(limit: number, length: number | undefined): HttpError {
  const forImages = Math.max(0, Math.floor(((limit - 16 * 1024) * 3) / 4));
  return new HttpError(413, 'payload_too_large', 'Request body too large', [
    {
      detail:
        `The template is ${length ? `${length.toLocaleString('en')} bytes` : 'larger than the limit'}; at most ${limit.toLocaleString('en')} bytes are accepted. ` +
        `Images travel inside it as base64 data: URLs, so together they can have at most about ${forImages.toLocaleString('en')} bytes: send smaller PNG images.`,
      source: { pointer: '/passTemplate/images' },
    },
  ]);
}

/** Maps an error of any origin to an {@link HttpError}, or null when unexpected. */
function classify(err: unknown, operationId?: string, route?: string): HttpError | null {
  if (err instanceof HttpError) return err;
  if (err instanceof DomainError) return httpErrorOf(err);
  if (isDatabaseUnavailable(err)) return new ServiceUnavailableError('The database is unavailable; retry later.');
  // A transaction that kept losing to concurrent ones (src/db/contention.ts): nothing was changed.
  if (isTransactionContention(err))
    return new ServiceUnavailableError('Too many concurrent changes of the same resource; nothing was changed, retry shortly.', 1);
  const e = err as HttpLikeError;
  // Prisma known request errors (client-side codes).
  if (e?.code === 'P2002') return httpErrorOf(new ConflictError('A resource with the same unique value already exists.'));
  if (e?.code === 'P2025') return httpErrorOf(new NotFoundError('The resource does not exist.'));
  // body-parser
  if (e?.type === 'entity.too.large') {
    const limit = Number(e['limit' as keyof HttpLikeError]);
    if (route && TEMPLATE_BODY.test(route) && Number.isFinite(limit)) {
      return templateBodyTooLarge(limit, Number(e['length' as keyof HttpLikeError]) || undefined);
    }
    return new HttpError(413, 'payload_too_large', 'Request body too large', [
      { detail: `The request body is larger than the limit of ${e['limit' as keyof HttpLikeError] ?? 'the configured'} bytes.` },
    ]);
  }
  if (e?.type === 'entity.parse.failed') {
    return new HttpError(400, 'invalid_json', 'Malformed JSON', [{ detail: 'The request body is not valid JSON.', source: { pointer: '' } }]);
  }
  if (e?.type === 'charset.unsupported') {
    return new HttpError(415, 'unsupported_media_type', 'Unsupported media type', [
      { detail: 'The request body charset is not supported; send UTF-8 JSON.', source: { header: 'Content-Type' } },
    ]);
  }
  if (e?.type === 'encoding.unsupported') {
    return new HttpError(415, 'unsupported_media_type', 'Unsupported media type', [
      {
        detail: 'The request body Content-Encoding is not supported; send it as it is (identity), or gzip, deflate or br.',
        source: { header: 'Content-Encoding' },
      },
    ]);
  }
  // A body whose Content-Encoding it claims does not decode (zlib's error, wrapped by body-parser).
  if (typeof e?.code === 'string' && /^(Z_|ERR__ERROR|ERR_BROTLI|ERR_ZSTD)/.test(e.code)) {
    return new HttpError(400, 'invalid_body_encoding', 'Undecodable request body', [
      { detail: 'The request body is not what its Content-Encoding says it is.', source: { header: 'Content-Encoding' } },
    ]);
  }
  // A body that is not the multipart form its Content-Type announces (JSON sent as
  // `multipart/form-data; boundary=x`, a form cut short, a part without headers): busboy's parse
  // error, which multer passes on and express-openapi-validator reports as a 500.
  const status = e?.status ?? e?.statusCode;
  if (status === 500 && MALFORMED_MULTIPART.test(e?.message ?? '')) {
    return new HttpError(400, 'invalid_multipart', 'Malformed multipart form', [
      {
        detail: `The request body is not the multipart/form-data form (RFC 7578) its Content-Type announces: ${e.message}. A JSON body is sent with Content-Type: application/json.`,
        source: { header: 'Content-Type' },
      },
    ]);
  }
  // The validator's wording for busboy's "Multipart: Boundary not found".
  if (status === 400 && e?.message === 'multipart file(s) required') {
    return new HttpError(400, 'invalid_multipart', 'Malformed multipart form', [
      {
        detail: 'Content-Type multipart/form-data needs its boundary parameter (RFC 2046, section 5.1.1), e.g. multipart/form-data; boundary=----form.',
        source: { header: 'Content-Type' },
      },
    ]);
  }
  if (e?.type === 'request.size.invalid' || e?.type === 'request.aborted') {
    return new HttpError(400, 'incomplete_body', 'Incomplete request body', [
      { detail: 'The request body did not match its Content-Length.', source: { header: 'Content-Length' } },
    ]);
  }
  return validatorError(e, operationId);
}

/** Renders an {@link HttpError} as a list of JSON:API error objects. */
export function errorObjects(error: HttpError): ErrorObject[] {
  return error.problems.map((p) => ({
    status: String(error.status),
    code: error.code,
    title: error.title,
    detail: p.detail,
    ...(p.source ? { source: p.source } : {}),
  }));
}

/**
 * Express error middleware (last in the chain).
 * @param allowedMethods Methods documented per OpenAPI path template, for the `Allow` header of 405s.
 */
export function errorHandler(allowedMethods: (path: string) => string[] | undefined): ErrorRequestHandler {
  /** The generic 500 document; its body quotes the request id and nothing else. */
  const internalError = (req: Parameters<ErrorRequestHandler>[1], res: Parameters<ErrorRequestHandler>[2], err: unknown) => {
    req.log?.error({ err }, 'unexpected error');
    if (res.headersSent) return void res.end();
    const requestId = String(res.getHeader('X-Request-Id') ?? '');
    res.status(500).json({
      errors: [
        {
          status: '500',
          code: 'internal_error',
          title: 'Internal server error',
          detail: `An unexpected error occurred. Quote request id ${requestId} when reporting it.`,
        },
      ],
    });
  };
  return (err, req, res, _next) => {
    const known = classify(err, (req as { openapi?: { schema?: { operationId?: string } } }).openapi?.schema?.operationId, `${req.method} ${req.path}`);
    if (!known) return internalError(req, res, err);
    if (known.status === 503) req.log?.warn({ err }, isTransactionContention(err) ? 'transaction contention' : 'database unavailable');
    else req.log?.info({ status: known.status, code: known.code, detail: known.message }, 'request refused');
    if (res.headersSent) return res.end();
    for (const [name, value] of Object.entries(known.headers)) res.setHeader(name, value);
    if (known.status === 405) {
      const methods = allowedMethods(req.path);
      if (methods) res.setHeader('Allow', methods.join(', '));
    }
    res.status(known.status).json({ errors: errorObjects(known) });
  };
}
