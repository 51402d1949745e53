/**
 * Refuses, for every operation and right after the JSON body is parsed, a body whose arrays and
 * objects are nested more than {@link MAX_JSON_DEPTH} levels deep, before anything walks it
 * recursively (the storable-text check, the contract validator, the idempotency fingerprint, the
 * template merge). A 200 KB body of `[[[…]]]` would otherwise exhaust the call stack of each of
 * them. No request body of the contract nests deeper than 9 levels, so the limit refuses nothing
 * a client sends on purpose.
 *
 * The check is iterative (an explicit stack), so it cannot itself run out of stack. JSON.parse
 * in V8 is iterative too, and the body limit (BODY_LIMIT_BYTES) bounds what it reads.
 *
 * The limit is part of the contract: openapi/openapi.yaml (info, Limits) and the BadRequest
 * response's example. RFC 8259 §9 lets a parser "set limits on the maximum depth of nesting".
 *
 * @module http/jsonDepth
 */
import type { RequestHandler } from 'express';
import { ValidationError } from '../errors.ts';

/** The deepest nesting of arrays and objects a request body may have; the body itself is level 1. */
export const MAX_JSON_DEPTH = 64;

/** Escapes a member name as a JSON Pointer reference token (RFC 6901 §3). */
function token(name: string): string {
  return name.replace(/~/g, '~0').replace(/\//g, '~1');
}

/**
 * The JSON Pointer (RFC 6901) of the first array or object, depth first in document order, that
 * lies deeper than `maxDepth` levels in `value` (a parsed JSON value; `value` itself is level 1
 * when it is an array or object); undefined when there is none. Visits each value at most once.
 */
export function tooDeepIn(value: unknown, maxDepth = MAX_JSON_DEPTH): string | undefined {
  const stack: { value: unknown; pointer: string; depth: number }[] = [{ value, pointer: '', depth: 1 }];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.value === null || typeof node.value !== 'object') continue;
    if (node.depth > maxDepth) return node.pointer;
    const children = Array.isArray(node.value)
      ? node.value.map((item, i) => [String(i), item] as const)
      : Object.entries(node.value).map(([name, item]) => [token(name), item] as const);
    // Pushed in reverse so that the first child is looked at first (document order).
    for (let i = children.length - 1; i >= 0; i--) {
      const [name, item] = children[i]!;
      if (item !== null && typeof item === 'object') stack.push({ value: item, pointer: `${node.pointer}/${name}`, depth: node.depth + 1 });
    }
  }
  return undefined;
}

/**
 * Express middleware; runs right after the JSON body parser and before any other look at the body.
 * @throws (through `next`) ValidationError (400 `validation_failed`) whose `source.pointer` is the
 *   first array or object nested too deep.
 */
export function refuseDeepJson(maxDepth = MAX_JSON_DEPTH): RequestHandler {
  return (req, _res, next) => {
    const pointer = tooDeepIn(req.body, maxDepth);
    next(
      pointer === undefined
        ? undefined
        : new ValidationError({
            detail: `The request body has arrays or objects nested more than ${maxDepth} levels deep, the limit; the first one too deep is at source.pointer.`,
            source: { pointer },
          }),
    );
  };
}
