/**
 * Refuses, for every operation and before the contract is checked, input that the database could
 * never store (src/db/storableText.ts): a NUL character or an unpaired UTF-16 surrogate in a
 * query parameter (name or value) or anywhere in a JSON request body (member names included),
 * and a request path whose percent-encoding is not UTF-8 (RFC 3986 §2.5) or decodes to such a
 * character. One check for all operations, so that no field, present or future, lets such text
 * reach a statement.
 *
 * Answers 400 `validation_failed` naming the query `parameter` or the body member (JSON `pointer`),
 * except where an operation's protocol allows no 400 for what names a resource: there a path or
 * query value that cannot be stored names nothing, and is answered as the operation answers an
 * unknown name (the contract's `x-unstorable-path-status`: Apple Wallet's web service answers
 * `401` for an unknown pass and `204` for a device with nothing to list,
 * https://developer.apple.com/documentation/walletpasses/adding-a-web-service-to-update-passes).
 *
 * @module http/storableInput
 */
import type { Request, RequestHandler } from 'express';
import { unstorableIn, unstorableReason } from '../db/storableText.ts';
import { AuthenticationError, ValidationError, type Problem } from '../errors.ts';

const REFUSED = 'which cannot be stored; remove it';

/** The problem with a request path, or undefined when every segment decodes to storable text. */
function pathProblem(path: string): Problem | undefined {
  // Without a percent-escape a path is what Node's HTTP parser let through: Latin-1 characters
  // other than NUL, which it refuses in a request line (and never a surrogate). Most paths.
  if (!path.includes('%') && !path.includes('\u0000')) return undefined;
  for (const segment of path.split('/')) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      return { detail: `The path segment "${segment.slice(0, 64)}" is not valid percent-encoded UTF-8 (RFC 3986).` };
    }
    const reason = unstorableReason(decoded);
    if (reason) return { detail: `A path segment contains ${reason}, ${REFUSED}.` };
  }
  return undefined;
}

/** The problem with the parsed query, or undefined. Names in `query` are the parameters. */
function queryProblem(query: Record<string, unknown>): Problem | undefined {
  for (const [name, value] of Object.entries(query)) {
    const nameReason = unstorableReason(name);
    if (nameReason) return { detail: `A query parameter name contains ${nameReason}, ${REFUSED}.` };
    const found = unstorableIn(value);
    if (found) return { detail: `The query parameter ${name} contains ${found.reason}, ${REFUSED}.`, source: { parameter: name } };
  }
  return undefined;
}

/** The problem with the parsed JSON body, or undefined. */
function bodyProblem(body: unknown): Problem | undefined {
  const found = unstorableIn(body);
  if (!found) return undefined;
  const where = found.inName ? `A member name in ${found.pointer || 'the request body'}` : found.pointer ? `The member ${found.pointer}` : 'The request body';
  return { detail: `${where} contains ${found.reason}, ${REFUSED}.`, source: { pointer: found.pointer } };
}

/**
 * How an operation answers a path or query value that cannot be stored, instead of 400: `status`
 * 401 is an authentication failure of `scheme` (a JSON:API error document with its challenge);
 * any other status is answered with no body (Apple's `204`).
 */
export interface UnstorableNameAnswer {
  status: number;
  scheme: 'Bearer' | 'ApplePass';
}

/**
 * Express middleware; runs after the body parser and before the validator.
 * @param ignoresQuery Whether the request's operation ignores its query string (the health
 *   probes): its query is not looked at.
 * @param answersUnstorableName How the request's operation answers a path or query value that
 *   cannot be stored, when not with 400 (undefined: 400).
 * @throws (through `next`) ValidationError with one problem: the first unstorable text found;
 *   AuthenticationError when the operation answers such a name with 401.
 */
export function refuseUnstorableInput(
  ignoresQuery: (req: Request) => boolean = () => false,
  answersUnstorableName: (req: Request) => UnstorableNameAnswer | undefined = () => undefined,
): RequestHandler {
  return (req, res, next) => {
    const query = ignoresQuery(req) ? {} : (req.query as Record<string, unknown>);
    const nameProblem = pathProblem(req.path) ?? queryProblem(query);
    const answer = nameProblem && answersUnstorableName(req);
    if (answer?.status === 401) {
      return next(
        new AuthenticationError(
          'The path or query names nothing here: it holds a NUL, an unpaired surrogate or bytes that are not UTF-8.',
          'invalid_token',
          { header: 'Authorization' },
          answer.scheme,
        ),
      );
    }
    if (answer) return void res.status(answer.status).end();
    const problem = nameProblem ?? bodyProblem(req.body);
    next(problem ? new ValidationError(problem) : undefined);
  };
}
