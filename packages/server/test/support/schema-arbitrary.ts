// A small JSON Schema (2020-12, as OpenAPI 3.1 uses it) → fast-check arbitrary, for the subset the service's
// OpenAPI document uses: object (properties, required, additionalProperties, propertyNames, min/maxProperties), string (enum, const,
// pattern, minLength, maxLength, format date-time / email / uri), integer and number bounds, boolean, null,
// array (items, minItems, maxItems, uniqueItems), anyOf / oneOf, and type lists (nullable). What it does not know
// it refuses loudly (a new keyword in the document must be taught here, not silently ignored). Values are meant
// to be valid; the fuzzer still checks each one with Ajv and keeps only those.
//
// It also lists the one-step mutations of a valid value (mutationsOf): a node deleted, a property added, a node
// replaced with a value of another type or outside common bounds; the fuzzer keeps those Ajv says are invalid.
import fc from 'fast-check';

// biome-ignore lint/suspicious/noExplicitAny: JSON Schema is JSON
export type Schema = boolean | Record<string, any>;

const ANNOTATIONS = new Set([
  'description',
  'title',
  'examples',
  'default',
  'deprecated',
  'readOnly',
  'writeOnly',
]);
const KNOWN = new Set([
  ...ANNOTATIONS,
  'type',
  'enum',
  'const',
  'anyOf',
  'oneOf',
  'properties',
  'required',
  'additionalProperties',
  'propertyNames',
  'minProperties',
  'maxProperties',
  'pattern',
  'minLength',
  'maxLength',
  'format',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'items',
  'minItems',
  'maxItems',
  'uniqueItems',
]);

/** The longest string or array generated away from its bound: requests stay small, bounds are still reached. */
const FREE_LENGTH = 40;
const FREE_ITEMS = 3;

/** Any JSON value, small. */
export const anyJson = fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<unknown>;

export function arbitraryOf(schema: Schema): fc.Arbitrary<unknown> {
  if (schema === true) return anyJson;
  if (schema === false) throw new Error('no value fits the schema false');
  const unknown = Object.keys(schema).filter((k) => !KNOWN.has(k));
  if (unknown.length > 0) throw new Error(`schema-arbitrary does not know ${unknown.join(', ')}`);
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum !== undefined) return fc.constantFrom(...(schema.enum as unknown[]));
  const union = schema.anyOf ?? schema.oneOf;
  if (union !== undefined) {
    const { anyOf: _a, oneOf: _o, ...rest } = schema;
    return fc.oneof(...(union as Schema[]).map((branch) => arbitraryOf(merge(rest, branch, union))));
  }
  const type = schema.type ?? (schema.properties !== undefined ? 'object' : undefined);
  if (Array.isArray(type)) return fc.oneof(...type.map((t: string) => arbitraryOf({ ...schema, type: t })));
  switch (type) {
    case undefined:
      return anyJson;
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return integerOf(schema);
    case 'number':
      return fc.oneof(
        integerOf(schema),
        fc.double({
          noNaN: true,
          noDefaultInfinity: true,
          ...(schema.minimum === undefined ? {} : { min: schema.minimum }),
          ...(schema.maximum === undefined ? {} : { max: schema.maximum }),
        }),
      );
    case 'string':
      return stringOf(schema);
    case 'array':
      return arrayOf(schema);
    case 'object':
      return objectOf(schema);
    default:
      throw new Error(`schema-arbitrary does not know type ${String(type)}`);
  }
}

/**
 * A branch of anyOf/oneOf with its parent's keywords: required lists and properties join, the rest is the branch's.
 * "Exactly one of a, b, c" (branches that each require one property of the parent) leaves out the properties the
 * other branches require, so the branch's values mostly fit the oneOf.
 */
function merge(parent: Record<string, unknown>, branch: Schema, siblings: readonly Schema[]): Schema {
  if (typeof branch === 'boolean') return branch;
  const kept = Object.fromEntries(Object.entries(parent).filter(([k]) => !ANNOTATIONS.has(k)));
  const merged: Record<string, unknown> = { ...kept, ...branch };
  if (kept.properties !== undefined && branch.properties !== undefined)
    merged.properties = { ...(kept.properties as object), ...branch.properties };
  if (kept.required !== undefined && branch.required !== undefined)
    merged.required = [...new Set([...(kept.required as string[]), ...branch.required])];
  if (kept.properties !== undefined && branch.properties === undefined && branch.type === undefined) {
    const own = new Set<string>((merged.required as string[] | undefined) ?? []);
    const others = siblings
      .filter((s) => s !== branch && typeof s === 'object')
      .flatMap((s) => ((s as Record<string, string[]>).required ?? []).filter((name) => !own.has(name)));
    merged.properties = Object.fromEntries(
      Object.entries(kept.properties as object).filter(([name]) => !others.includes(name)),
    );
  }
  return merged;
}

function integerOf(schema: Record<string, number>): fc.Arbitrary<number> {
  const min =
    schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : (schema.minimum ?? -1_000_000_000);
  const max =
    schema.exclusiveMaximum !== undefined ? schema.exclusiveMaximum - 1 : (schema.maximum ?? 1_000_000_000);
  return fc.oneof(fc.constantFrom(min, max), fc.integer({ min, max }));
}

function lengthOk(schema: Record<string, number>) {
  return (text: string) => {
    const length = [...text].length; // JSON Schema counts code points
    return length >= (schema.minLength ?? 0) && length <= (schema.maxLength ?? Number.POSITIVE_INFINITY);
  };
}

function stringOf(schema: Record<string, unknown>): fc.Arbitrary<string> {
  const minLength = (schema.minLength as number | undefined) ?? 0;
  const maxLength = schema.maxLength as number | undefined;
  const fits = lengthOk(schema as Record<string, number>);
  const pattern = schema.pattern === undefined ? null : new RegExp(schema.pattern as string, 'u');
  const byFormat = formatOf(schema.format as string | undefined);
  if (byFormat !== null) return byFormat.filter((s) => fits(s) && (pattern === null || pattern.test(s)));
  if (pattern !== null) {
    // The default size: larger ones multiply through nested quantifiers into megabytes.
    return fc.stringMatching(pattern).filter(fits);
  }
  const upTo = Math.min(maxLength ?? FREE_LENGTH, Math.max(minLength, FREE_LENGTH));
  const free = fc.oneof(
    fc.string({ minLength, maxLength: upTo }),
    fc.string({ minLength, maxLength: upTo, unit: 'binary' }),
  );
  const atBounds =
    maxLength !== undefined && maxLength <= 4096
      ? [
          fc.string({ minLength: maxLength, maxLength, unit: 'grapheme-ascii' }),
          fc.constant('é'.repeat(maxLength)),
        ]
      : [];
  return fc.oneof(free, ...atBounds).filter(fits);
}

function formatOf(format: string | undefined): fc.Arbitrary<string> | null {
  switch (format) {
    case undefined:
      return null;
    case 'date-time':
      return fc
        .date({
          min: new Date('2000-01-01T00:00:00Z'),
          max: new Date('2100-01-01T00:00:00Z'),
          noInvalidDate: true,
        })
        .map((d) => d.toISOString());
    case 'email':
      return fc.emailAddress();
    case 'uri':
      return fc.webUrl({ validSchemes: ['https'] });
    default:
      throw new Error(`schema-arbitrary does not know format ${format}`);
  }
}

function arrayOf(schema: Record<string, unknown>): fc.Arbitrary<unknown[]> {
  const items = arbitraryOf((schema.items as Schema | undefined) ?? true);
  const minLength = (schema.minItems as number | undefined) ?? 0;
  const maxItems = schema.maxItems as number | undefined;
  const maxLength = Math.min(maxItems ?? FREE_ITEMS + minLength, minLength + FREE_ITEMS);
  const arrays = [
    schema.uniqueItems === true
      ? fc.uniqueArray(items, { minLength, maxLength, selector: (v) => JSON.stringify(v) })
      : fc.array(items, { minLength, maxLength }),
  ];
  // The upper bound itself, when it is small enough to send.
  if (maxItems !== undefined && maxItems > maxLength && maxItems <= 32 && schema.uniqueItems !== true) {
    arrays.push(fc.array(items, { minLength: maxItems, maxLength: maxItems }));
  }
  return fc.oneof(...arrays);
}

function objectOf(schema: Record<string, unknown>): fc.Arbitrary<Record<string, unknown>> {
  // A property whose schema is `false` must be absent: it is never generated.
  const properties = Object.fromEntries(
    Object.entries((schema.properties as Record<string, Schema> | undefined) ?? {}).filter(
      ([, s]) => s !== false,
    ),
  );
  const required = (schema.required as string[] | undefined) ?? [];
  const known = fc.record(
    Object.fromEntries(Object.entries(properties).map(([name, s]) => [name, arbitraryOf(s)])),
    { requiredKeys: required.filter((name) => name in properties) },
  ) as fc.Arbitrary<Record<string, unknown>>;
  const minProperties = (schema.minProperties as number | undefined) ?? 0;
  const maxProperties = (schema.maxProperties as number | undefined) ?? Number.POSITIVE_INFINITY;
  const counted = (o: Record<string, unknown>) =>
    Object.keys(o).length >= minProperties && Object.keys(o).length <= maxProperties;
  const additional = schema.additionalProperties as Schema | undefined;
  if (additional === false) return known.filter(counted);
  const names =
    schema.propertyNames === undefined
      ? fc.string({ minLength: 1, maxLength: 12 })
      : stringOf(schema.propertyNames as Record<string, unknown>);
  const extra = fc.dictionary(
    names.filter((n) => !(n in properties) && n !== '__proto__'),
    arbitraryOf(additional ?? true),
    { maxKeys: 2 },
  );
  return fc
    .tuple(known, extra)
    .map(([k, e]) => ({ ...e, ...k }))
    .filter(counted);
}

/** One step away from a valid value; the fuzzer keeps the mutants the schema refuses. */
export interface Mutation {
  kind: 'removed' | 'added' | 'replaced';
  /** Where, as a JSON pointer into the value. */
  at: string;
  value: unknown;
}

const REMOVED = Symbol('removed');

/** Replacements tried at every node: other types, and common out-of-bounds values. */
function replacementsFor(node: unknown): unknown[] {
  const out: unknown[] = [null, true, 0, -1, 1.5, 1e21, '', 'x', [], {}, [node], { value: node }];
  if (typeof node === 'string') {
    out.push(
      `${node}x`,
      node.slice(1),
      node.toUpperCase(),
      ` ${node}`,
      `${node}\u0000`,
      node.repeat(2),
      'x'.repeat(70),
      'é'.repeat(300),
      'x'.repeat(5000),
      '0',
      '-1',
      '1.5',
      '1e3',
      '999999999999',
      'not valid!',
      '2026-13-45T99:99:99Z',
    );
  }
  if (typeof node === 'number') {
    out.push(String(node), node + 0.5, node - 1_000_000_000, node + 1_000_000_000, -node - 1);
  }
  if (typeof node === 'boolean') out.push(String(node), node ? 1 : 0);
  if (Array.isArray(node))
    out.push(
      [...node, ...node],
      node.slice(1),
      Array.from({ length: 1001 }, () => node[0]),
    );
  return out;
}

export function mutationsOf(value: unknown): Mutation[] {
  const mutations: Mutation[] = [];
  const visit = (node: unknown, path: string[]) => {
    const at = `/${path.join('/')}`;
    for (const replacement of replacementsFor(node)) {
      mutations.push({ kind: 'replaced', at, value: setAt(value, path, replacement) });
    }
    if (node !== null && typeof node === 'object' && !Array.isArray(node)) {
      for (const name of Object.keys(node)) {
        mutations.push({
          kind: 'removed',
          at: `${at === '/' ? '' : at}/${name}`,
          value: setAt(value, [...path, name], REMOVED),
        });
      }
      mutations.push({
        kind: 'added',
        at: `${at === '/' ? '' : at}/unexpectedField`,
        value: setAt(value, [...path, 'unexpectedField'], 'surprise'),
      });
    }
    if (node !== null && typeof node === 'object') {
      for (const [name, child] of Object.entries(node)) visit(child, [...path, name]);
    }
  };
  visit(value, []);
  return mutations;
}

function setAt(root: unknown, path: string[], replacement: unknown): unknown {
  if (path.length === 0) return replacement === REMOVED ? undefined : replacement;
  const [head, ...rest] = path as [string, ...string[]];
  if (Array.isArray(root)) {
    const copy = [...root];
    const index = Number(head);
    if (rest.length === 0 && replacement === REMOVED) copy.splice(index, 1);
    else copy[index] = setAt(copy[index], rest, replacement);
    return copy;
  }
  const copy = { ...(root as Record<string, unknown>) };
  if (rest.length === 0 && replacement === REMOVED) delete copy[head];
  else copy[head] = setAt(copy[head], rest, replacement);
  return copy;
}
