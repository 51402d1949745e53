/**
 * fast-check arbitraries (https://fast-check.dev) made from the JSON Schemas of the bundled
 * contract, for the fuzz test: values that follow a schema (so that requests get past
 * validation and reach the handlers and the database), or, asked to be hostile, that sometimes
 * break it on purpose — a member of another type, a hostile string (NUL, an unpaired surrogate,
 * a date that does not exist, a very long text), an extra member — so that every refusal path
 * is walked too.
 */
import fc from 'fast-check';

/** The subset of JSON Schema (OpenAPI 3.1) the contract uses. */
export interface Schema {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  minItems?: number;
  maxItems?: number;
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  oneOf?: Schema[];
  anyOf?: Schema[];
  allOf?: Schema[];
  not?: Schema;
}

/** Strings that have broken servers: unstorable characters, impossible dates, huge or odd text. */
export const hostileStrings: string[] = [
  '',
  'a\u0000b',
  '\ud800',
  'x\udfff',
  '2026-02-30T00:00:00Z',
  '2026-12-31T23:59:60Z',
  '0000-01-01T00:00:00Z',
  '9999-12-31T23:59:59+14:00',
  'x'.repeat(5000),
  '😀'.repeat(200),
  '%00',
  '../../etc/passwd',
  "'; DROP TABLE passes; --",
  '<script>alert(1)</script>',
  '1e400',
  '-0',
  ' ',
  '\u202e',
  '00000000-0000-0000-0000-000000000000',
  `wps_${'A'.repeat(43)}`,
];

/** Any JSON value, small. */
const anyJson = fc.jsonValue({ maxDepth: 2 });

/** Two parts of an `allOf`, merged. */
function mergeSchemas(all: Schema, part: Schema): Schema {
  return { ...all, ...part, properties: { ...all.properties, ...part.properties }, required: [...(all.required ?? []), ...(part.required ?? [])] };
}

/** Builds arbitraries from the schemas of `document` (resolving local `$ref`s). */
export function schemaArbitraries(document: unknown) {
  const resolve = (schema: Schema): Schema => {
    let current = schema;
    while (current?.$ref) {
      current = current.$ref
        .split('/')
        .slice(1)
        .reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], document) as Schema;
    }
    return current ?? {};
  };

  /**
   * Values for `schema`: schema-following ones, and, when `hostile`, now and then (one member in
   * seven) a hostile string or any JSON value instead, and a stray member in some objects.
   */
  function arbitrary(schemaOrRef: Schema, hostile = true, depth = 0): fc.Arbitrary<unknown> {
    const schema = resolve(schemaOrRef);
    const valid = follow(schema, hostile, depth);
    if (!hostile) return valid;
    return fc.oneof({ arbitrary: valid, weight: 12 }, { arbitrary: fc.constantFrom(...hostileStrings), weight: 1 }, { arbitrary: anyJson, weight: 1 });
  }

  function string(schema: Schema): fc.Arbitrary<string> {
    if (schema.format === 'uuid') return fc.uuid();
    if (schema.format === 'date-time') {
      return fc
        .date({ min: new Date('2020-01-01T00:00:00Z'), max: new Date('2030-12-31T00:00:00Z'), noInvalidDate: true })
        .map((d) => d.toISOString().replace(/\.\d{3}Z$/, 'Z'));
    }
    if (schema.format === 'uri') return fc.webUrl();
    if (schema.format === 'email') return fc.emailAddress();
    if (schema.pattern) {
      try {
        const [min, max] = [schema.minLength ?? 0, schema.maxLength ?? 1000];
        // A pattern open at its end (e.g. PemCertificate's) rarely yields minLength characters by
        // itself, and filtering for them would spin for ever: pad such matches instead.
        const openEnd = !schema.pattern.endsWith('$');
        return fc
          .stringMatching(new RegExp(schema.pattern, 'u'))
          .map((s) => (openEnd && s.length < min ? s + 'x'.repeat(min - s.length) : s))
          .filter((s) => s.length <= max && s.length >= min);
      } catch {
        // a pattern fast-check cannot invert: fall through
      }
    }
    const minLength = schema.minLength ?? 0;
    return fc.string({ unit: 'grapheme', minLength, maxLength: Math.max(minLength, Math.min(schema.maxLength ?? 40, 60)) });
  }

  function follow(schema: Schema, hostile: boolean, depth: number): fc.Arbitrary<unknown> {
    if (schema.const !== undefined) return fc.constant(schema.const);
    if (schema.enum) return fc.constantFrom(...schema.enum);
    const variants = schema.oneOf ?? schema.anyOf;
    if (variants?.length) return fc.oneof(...variants.map((v) => follow(resolve(v), hostile, depth)));
    if (schema.allOf?.length) {
      const merged = schema.allOf.map(resolve).reduce<Schema>(mergeSchemas, {});
      return follow(merged, hostile, depth);
    }
    const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : schema.properties ? ['object'] : ['string'];
    return fc.oneof(...types.map((type) => ofType(schema, type, hostile, depth)));
  }

  function ofType(schema: Schema, type: string, hostile: boolean, depth: number): fc.Arbitrary<unknown> {
    switch (type) {
      case 'null':
        return fc.constant(null);
      case 'boolean':
        return fc.boolean();
      case 'integer':
        return fc.integer({ min: schema.minimum ?? -1_000_000, max: schema.maximum ?? 1_000_000 });
      case 'number':
        return fc.double({ min: schema.minimum ?? -1e6, max: schema.maximum ?? 1e6, noNaN: true, noDefaultInfinity: true });
      case 'array': {
        if (depth > 4) return fc.constant([]);
        return fc.array(arbitrary(schema.items ?? {}, hostile, depth + 1), { minLength: schema.minItems ?? 0, maxLength: Math.min(schema.maxItems ?? 4, 4) });
      }
      case 'object': {
        if (depth > 4) return fc.constant({});
        const properties = schema.properties ?? {};
        const required = new Set(schema.required ?? []);
        const record: Record<string, fc.Arbitrary<unknown>> = {};
        for (const [name, property] of Object.entries(properties)) record[name] = arbitrary(property, hostile, depth + 1);
        const shaped = fc.record(record, { requiredKeys: Object.keys(properties).filter((name) => required.has(name)) });
        const extra =
          schema.additionalProperties === false || schema.additionalProperties === undefined
            ? fc.constant({})
            : fc.dictionary(
                fc.string({ minLength: 1, maxLength: 12 }),
                arbitrary(schema.additionalProperties === true ? {} : schema.additionalProperties, hostile, depth + 1),
                { maxKeys: 3 },
              );
        const stray = hostile ? fc.option(fc.tuple(fc.constantFrom('unexpected', 'a\u0000b', '\ud800'), anyJson), { freq: 10 }) : fc.constant(null);
        return fc.tuple(shaped, extra, stray).map(([value, more, odd]) => ({ ...more, ...value, ...(odd ? { [odd[0]]: odd[1] } : {}) }));
      }
      default:
        return string(schema);
    }
  }

  return { arbitrary, resolve };
}
