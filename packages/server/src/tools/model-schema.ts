// A tool's input schema in the form every model's tool format takes (the issue "schemas every model accepts";
// the rules are written out, with their sources, in test/support/schema-rules.ts):
//  - OpenAI strict function calling: every object closed (`additionalProperties: false`) and every property in
//    `required`, an optional one as a union with null (which the server reads as absent: optional-param.ts);
//  - Gemini function declarations (an OpenAPI 3.0 subset, after the conversion its adapters apply): no keyword
//    outside type, description, enum, properties, required, items and a union with null (→ `nullable`).
// So only those keywords are kept. A limit the schema can no longer say (a length, a bound, a count) is
// appended to the description; a pattern is dropped, its param's own description says the format. The server
// still enforces every one of them with a VALIDATION_ERROR: this changes what is shown, never what is accepted.

type Json = Record<string, unknown>;

/** What a model-facing schema may hold (additionalProperties only ever as false). */
const KEPT = new Set(['type', 'description', 'enum', 'properties', 'required', 'items', 'anyOf']);

export function modelSchema(schema: Json): Json {
  const { node, limits } = convert(schema);
  return withLimits(node, limits);
}

/** The node converted, and the limits it stripped that its description must now carry. */
function convert(schema: Json): { node: Json; limits: string[] } {
  if (Array.isArray(schema.type)) return convert(unionOfTypes(schema));
  const node: Json = {};
  for (const [key, value] of Object.entries(schema)) if (KEPT.has(key)) node[key] = value;
  if (Array.isArray(schema.anyOf)) return convertUnion(node, schema.anyOf as Json[]);
  if (schema.items !== undefined) node.items = modelSchema(schema.items as Json);
  if (schema.type === 'object') closeObject(node, schema);
  return { node, limits: limitsOf(schema) };
}

/** A union's limits are its branches' (the null branch has none), said once on the union itself. */
function convertUnion(node: Json, branches: Json[]): { node: Json; limits: string[] } {
  const converted = branches.map(convert);
  node.anyOf = converted.map((branch) => branch.node);
  return { node, limits: converted.flatMap((branch) => branch.limits) };
}

/**
 * `type: ["string", "null"]` as `anyOf: [{type: "string", …}, {type: "null"}]`: the form Gemini's adapters turn
 * into `nullable` (a type list they turn into an anyOf of types, which older Gemini versions refuse).
 */
function unionOfTypes(schema: Json): Json {
  const { type, description, ...rest } = schema;
  const types = type as string[];
  return {
    ...(description === undefined ? {} : { description }),
    anyOf: types.map((one) => (one === 'null' ? { type: 'null' } : { ...rest, type: one })),
  };
}

/** Closed, every property required; one that was optional admits null (= absent) unless it already does. */
function closeObject(node: Json, schema: Json): void {
  const properties = (schema.properties ?? {}) as Record<string, Json>;
  const required = new Set((schema.required ?? []) as string[]);
  const converted: Record<string, Json> = {};
  for (const [name, property] of Object.entries(properties)) {
    const model = modelSchema(property);
    converted[name] = required.has(name) || admitsNull(model) ? model : nullable(model);
  }
  node.properties = converted;
  node.required = Object.keys(converted);
  node.additionalProperties = false;
}

export function admitsNull(schema: Json): boolean {
  return schema.type === 'null' || ((schema.anyOf ?? []) as Json[]).some(admitsNull);
}

function nullable(schema: Json): Json {
  const { description, ...rest } = schema;
  return {
    ...(description === undefined ? {} : { description }),
    anyOf: [rest, { type: 'null' }],
  };
}

/** The limits a schema states with keywords no model format takes, in words. */
function limitsOf(schema: Json): string[] {
  const limits: string[] = [];
  const range = (min: unknown, max: unknown, unit: string) => {
    if (min !== undefined && max !== undefined) limits.push(`${min} to ${max}${unit}`);
    else if (max !== undefined) limits.push(`at most ${max}${unit}`);
    else if (min !== undefined) limits.push(`at least ${min}${unit}`);
  };
  range(schema.minLength, schema.maxLength, ' characters');
  range(schema.minimum, schema.maximum, '');
  range(schema.minItems, schema.maxItems, ' items');
  range(schema.minProperties, schema.maxProperties, ' entries');
  return limits;
}

function withLimits(node: Json, limits: string[]): Json {
  if (limits.length === 0) return node;
  const said = `(${limits.join('; ')})`;
  const description = typeof node.description === 'string' ? `${node.description} ${said}` : said;
  return { ...node, description };
}
