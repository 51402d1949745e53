/**
 * JSON Schemas of tools from the contract's schemas (OpenAPI 3.1 schemas are JSON Schema
 * 2020-12, https://spec.openapis.org/oas/v3.1.0#schema-object): every `$ref` to
 * `#/components/…` resolved in place, to {@link MAX_REF_DEPTH} nested references
 * ({@link MAX_OUTPUT_REF_DEPTH} in output schemas); a deeper one
 * (or a recursive one) becomes `{}` ("anything"), so that a tool stays small and validation by a
 * client stays correct, only less strict. What only documents the HTTP API — `example`,
 * `examples`, `externalDocs`, `xml`, `discriminator`, `x-…` extensions — is left out.
 *
 * @module mcp/toolSchemas
 */

/** A JSON Schema, as an object (booleans are not used by the contract). */
export type JsonSchema = Record<string, unknown>;

/** Nested `$ref`s resolved in place before a schema is left open, in input schemas. */
export const MAX_REF_DEPTH = 4;

/**
 * The same for output schemas, which say what an answer holds rather than what a call must send:
 * the response documents share deep members (a pass's design), and at 6 levels a pass document's
 * schema alone was 28 KB in each of 25 tools (a `tools/list` of 757 KB).
 */
export const MAX_OUTPUT_REF_DEPTH = 2;

/** Keywords that document the HTTP API, not the value. */
const LEFT_OUT = new Set(['example', 'examples', 'externalDocs', 'xml', 'discriminator', 'deprecated']);

/**
 * Resolves one schema of `document`.
 * @param document The bundled contract (generated/openapi.json), whose `$ref`s are local (`#/…`).
 * @param schema A schema of it, or a `$ref` to one.
 * @returns A new schema without `$ref`s (the document is not changed).
 */
export function resolveSchema(document: Record<string, unknown>, schema: unknown, maxDepth = MAX_REF_DEPTH): JsonSchema {
  return resolve(document, schema, 0, [], maxDepth) as JsonSchema;
}

function pointer(document: Record<string, unknown>, ref: string): unknown {
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = document;
  for (const part of ref.slice(2).split('/')) {
    node = (node as Record<string, unknown> | undefined)?.[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return node;
}

function resolve(document: Record<string, unknown>, node: unknown, depth: number, seen: string[], maxDepth: number): unknown {
  if (Array.isArray(node)) return node.map((item) => resolve(document, item, depth, seen, maxDepth));
  if (node === null || typeof node !== 'object') return node;
  const object = node as Record<string, unknown>;
  const ref = object.$ref;
  if (typeof ref === 'string') {
    if (depth >= maxDepth || seen.includes(ref)) {
      const target = pointer(document, ref) as Record<string, unknown> | undefined;
      const title = typeof target?.title === 'string' ? target.title : ref.split('/').pop();
      return { description: `A ${title}: see the contract (resource openapi://wallet-pass-service/openapi.json, ${ref}).` };
    }
    const target = pointer(document, ref);
    const resolved = resolve(document, target ?? {}, depth + 1, [...seen, ref], maxDepth) as JsonSchema;
    // Siblings of a $ref (OpenAPI 3.1 allows `description` next to it) win over the target's.
    const siblings = Object.entries(object).filter(([key]) => key !== '$ref' && !LEFT_OUT.has(key) && !key.startsWith('x-'));
    return siblings.length ? { ...resolved, ...Object.fromEntries(siblings.map(([k, v]) => [k, resolve(document, v, depth, seen, maxDepth)])) } : resolved;
  }
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(object)) {
    if (LEFT_OUT.has(key) || key.startsWith('x-')) continue;
    // `properties` and `patternProperties` map names to schemas: a name is not a keyword.
    if (key === 'properties' || key === 'patternProperties' || key === '$defs') {
      out[key] = Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([name, s]) => [name, resolve(document, s, depth, seen, maxDepth)]));
    } else out[key] = resolve(document, value, depth, seen, maxDepth);
  }
  return out;
}
