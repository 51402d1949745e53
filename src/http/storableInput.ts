/**
 * Refuses, for every operation and before the contract is checked, input that the database could
 * never store (src/db/storableText.ts): a NUL character or an unpaired UTF-16 surrogate in a
 * query parameter (name or value) or anywhere in a JSON request body (member names included),
 * and a request path whose percent-encoding is not UTF-8 (RFC 3986 §2.5) or decodes to such a
 * character. One check for all operations, so that no field, present or future, lets such text
 * reach a statement.
 *
 * Answers 400 `validation_failed` naming the query `parameter` or the body member (JSON `pointer`).
 *
 * @module http/storableInput
 */
import type { Request, RequestHandler } from 'express';
import { unstorableIn, unstorableReason } from '../db/storableText.ts';
import { ValidationError, type Problem } from '../errors.ts';

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
 * Express middleware; runs after the body parser and before the validator.
 * @param ignoresQuery Whether the request's operation ignores its query string (the health
 *   probes): its query is not looked at.
 * @throws (through `next`) ValidationError with one problem: the first unstorable text found.
 */
export function refuseUnstorableInput(ignoresQuery: (req: Request) => boolean = () => false): RequestHandler {
  return (req, _res, next) => {
    const query = ignoresQuery(req) ? {} : (req.query as Record<string, unknown>);
    const problem = pathProblem(req.path) ?? queryProblem(query) ?? bodyProblem(req.body);
    next(problem ? new ValidationError(problem) : undefined);
  };
}
