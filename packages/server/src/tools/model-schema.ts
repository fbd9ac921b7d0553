// A tool's input schema in the form every model's tool format takes (the issue "schemas every model accepts";
// the rules are written out, with their sources, in test/support/schema-rules.ts):
//  - OpenAI strict function calling: every object closed (`additionalProperties: false`) and every property in
//    `required`, an optional one admitting null (which the server reads as absent: optional-param.ts);
//  - Gemini function declarations (an OpenAPI 3.0 subset, after the conversion its adapters apply): no keyword
//    outside type, description, enum, properties, required, items and a type with null (→ `nullable`).
// So only those keywords are kept. A limit the schema can no longer say (a length, a bound, a count) is
// appended to the description; a pattern is dropped, its param's own description says the format. The server
// still enforces every one of them with a VALIDATION_ERROR: this changes what is shown, never what is accepted.
//
// A param that admits null is a type list, `type: ["string", "null"]` — the form OpenAI's own strict-mode examples
// use, and one every Gemini adapter turns into `nullable` — never `anyOf: [X, {type: "null"}]`: LangChain's MCP
// adapter (@langchain/mcp-adapters) drops an anyOf whose branches are not objects, so the model saw such a param
// with no type at all. A nullable enum cannot keep its enum beside the type list (null would have to be one of its
// values, and Gemini takes strings only there): its values are said in the description, and the server refuses
// any other value with a VALIDATION_ERROR naming them.

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

/**
 * A union's limits are its branches' (the null branch has none), said once on the union itself. One typed schema
 * or null becomes a type list; any other union stays one.
 */
function convertUnion(node: Json, branches: Json[]): { node: Json; limits: string[] } {
  const converted = branches.map(convert);
  const limits = converted.flatMap((branch) => branch.limits);
  const typed = converted.filter((branch) => branch.node.type !== 'null').map((branch) => branch.node);
  const [only] = typed;
  if (typed.length === 1 && typed.length < converted.length && typeof only?.type === 'string')
    return { node: withNull(node.description, only), limits };
  node.anyOf = converted.map((branch) => branch.node);
  return { node, limits };
}

/**
 * `schema` admitting null as well, as a type list: `{type: [<its type>, "null"], …}`. The union's own description
 * is kept (else the schema's); an enum becomes words in it (see the file's header).
 */
function withNull(description: unknown, schema: Json): Json {
  const { description: own, enum: values, type, ...rest } = schema;
  const choices = Array.isArray(values)
    ? `one of ${values.map((value) => JSON.stringify(value)).join(', ')}, or null`
    : undefined;
  const said = [description ?? own, choices === undefined ? undefined : `(${choices})`].filter(
    (part) => part !== undefined,
  );
  return { ...(said.length === 0 ? {} : { description: said.join(' ') }), type: [type, 'null'], ...rest };
}

/** `type: ["string", "null"]` as the union it means, which convertUnion turns back into the type list it keeps. */
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
  if (Array.isArray(schema.type)) return schema.type.includes('null');
  return schema.type === 'null' || ((schema.anyOf ?? []) as Json[]).some(admitsNull);
}

function nullable(schema: Json): Json {
  if (typeof schema.type === 'string') return withNull(undefined, schema);
  const { description, ...rest } = schema;
  return { ...(description === undefined ? {} : { description }), anyOf: [rest, { type: 'null' }] };
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
