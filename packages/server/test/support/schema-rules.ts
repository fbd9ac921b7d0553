// The two rule sets a tool's published input schema must pass (the issue "schemas every model accepts"), each
// written from its provider's documentation, and the conversion Gemini's adapters apply before the second.
// Each checker answers the problems it finds (empty: the schema passes), each naming where.

type Json = Record<string, unknown>;

// ---------------------------------------------------------------------------------------------------------------
// OpenAI: function calling with `strict: true` takes "a subset of JSON Schema", the one Structured Outputs takes.
// Source: https://platform.openai.com/docs/guides/structured-outputs#supported-schemas (now served at
// developers.openai.com/api/docs/guides/structured-outputs), sections "Supported types", "Supported properties",
// "Root objects must not be anyOf and must be an object", "All fields must be required", "Objects have
// limitations on nesting depth and size", "Limitations on enum size", "additionalProperties: false must always
// be set in objects", "Some type-specific keywords are not yet supported", "For anyOf, the nested schemas must
// each be a valid JSON Schema per this subset", "Definitions are supported".
// ---------------------------------------------------------------------------------------------------------------

/** "Supported types": String, Number, Boolean, Integer, Object, Array, Enum, anyOf (null: the optional form). */
const OPENAI_TYPES = new Set(['string', 'number', 'boolean', 'integer', 'object', 'array', 'null']);
/** Keywords of any node: the types' own structure, annotations, and definitions ("Definitions are supported"). */
const OPENAI_STRUCTURE = [
  'type',
  'description',
  'title',
  'enum',
  'const',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'anyOf',
  '$ref',
  '$defs',
];
/**
 * "Supported properties" (string: pattern, format; number: multipleOf, maximum, exclusiveMaximum, minimum,
 * exclusiveMinimum; array: minItems, maxItems) — which "are not yet supported for fine-tuned models". Every other
 * keyword is outside the subset: minLength, maxLength, propertyNames, patternProperties, minProperties,
 * maxProperties, uniqueItems, default, examples, allOf, not, if/then/else, dependentRequired, dependentSchemas…
 */
const OPENAI_CONSTRAINTS = [
  'pattern',
  'format',
  'multipleOf',
  'maximum',
  'exclusiveMaximum',
  'minimum',
  'exclusiveMinimum',
  'minItems',
  'maxItems',
];
const OPENAI_FORMATS = new Set([
  'date-time',
  'time',
  'date',
  'duration',
  'email',
  'hostname',
  'ipv4',
  'ipv6',
  'uuid',
]);
/** "up to 5000 object properties total, with up to 5 levels of nesting" (later versions: 10; the lower holds). */
const OPENAI_NESTING_MAX = 5;
const OPENAI_PROPERTIES_MAX = 5000;
/** "up to 1000 enum values across all enum properties". */
const OPENAI_ENUM_VALUES_MAX = 1000;

export interface OpenAIOptions {
  /** Fine-tuned models take none of the "Supported properties": "every model" means holding to that too. */
  fineTuned?: boolean;
}

export function openAIStrictProblems(schema: Json, options: OpenAIOptions = {}): string[] {
  const problems: string[] = [];
  if (schema.type !== 'object' || schema.anyOf !== undefined)
    problems.push(
      'root: must be an object, not anyOf ("Root objects must not be anyOf and must be an object")',
    );
  const allowed = new Set([...OPENAI_STRUCTURE, ...(options.fineTuned ? [] : OPENAI_CONSTRAINTS)]);
  const totals = { properties: 0, enumValues: 0 };
  walkOpenAI(schema, 'root', 0, { allowed, problems, totals });
  if (totals.properties > OPENAI_PROPERTIES_MAX)
    problems.push(`${totals.properties} object properties in all`);
  if (totals.enumValues > OPENAI_ENUM_VALUES_MAX) problems.push(`${totals.enumValues} enum values in all`);
  return problems;
}

interface OpenAIWalk {
  allowed: Set<string>;
  problems: string[];
  totals: { properties: number; enumValues: number };
}

function walkOpenAI(node: Json, at: string, depth: number, walk: OpenAIWalk): void {
  const { problems } = walk;
  for (const key of Object.keys(node))
    if (!walk.allowed.has(key)) problems.push(`${at}: "${key}" is not in strict mode's subset`);
  const types = node.type === undefined ? [] : Array.isArray(node.type) ? node.type : [node.type];
  for (const type of types)
    if (!OPENAI_TYPES.has(type as string)) problems.push(`${at}: type ${String(type)} is not supported`);
  if (
    node.type === undefined &&
    node.anyOf === undefined &&
    node.enum === undefined &&
    node.const === undefined
  )
    problems.push(`${at}: no type (every node states its type, or is an anyOf, enum or const)`);
  if (typeof node.format === 'string' && !OPENAI_FORMATS.has(node.format))
    problems.push(`${at}: format ${node.format} is not one of the supported formats`);
  if (Array.isArray(node.enum)) walk.totals.enumValues += node.enum.length;
  if (types.includes('object')) checkOpenAIObject(node, at, depth, walk);
  if (node.items !== undefined) walkOpenAI(node.items as Json, `${at}.items`, depth, walk);
  for (const [index, branch] of ((node.anyOf ?? []) as Json[]).entries())
    walkOpenAI(branch, `${at}.anyOf[${index}]`, depth, walk);
  for (const [name, definition] of Object.entries((node.$defs ?? {}) as Record<string, Json>))
    walkOpenAI(definition, `${at}.$defs.${name}`, depth, walk);
}

/** "additionalProperties: false must always be set in objects"; "All fields must be required"; nesting depth. */
function checkOpenAIObject(node: Json, at: string, depth: number, walk: OpenAIWalk): void {
  if (node.additionalProperties !== false) walk.problems.push(`${at}: additionalProperties must be false`);
  if (depth + 1 > OPENAI_NESTING_MAX)
    walk.problems.push(`${at}: nested deeper than ${OPENAI_NESTING_MAX} levels`);
  const properties = (node.properties ?? {}) as Record<string, Json>;
  const required = new Set((node.required ?? []) as string[]);
  for (const name of Object.keys(properties)) {
    walk.totals.properties += 1;
    if (!required.has(name)) walk.problems.push(`${at}.${name}: not in required (every field must be)`);
    walkOpenAI(properties[name] as Json, `${at}.${name}`, depth + 1, walk);
  }
  for (const name of required)
    if (!(name in properties)) walk.problems.push(`${at}: required names ${name}, which is no property`);
}

// ---------------------------------------------------------------------------------------------------------------
// Gemini: FunctionDeclaration.parameters is a Schema, "a select subset of an OpenAPI 3.0 schema object".
// Sources: https://ai.google.dev/api/caching#FunctionDeclaration and #Schema (Gemini API);
// https://cloud.google.com/vertex-ai/generative-ai/docs/reference/rest/v1/Schema (Vertex AI); the guide
// https://ai.google.dev/gemini-api/docs/function-calling ("Function declarations": "a select subset of the
// OpenAPI schema"; "For a function with no parameters, this can be left unset").
// The subset held here is the one every version of that reference lists — type, format, description, nullable,
// enum, properties, required, items, minItems, maxItems — not the keywords later versions added (anyOf, pattern,
// minLength, minimum, …), which older API versions and Vertex refuse. There is no additionalProperties, no
// $schema, no $ref, no type list and no "null" type: a nullable value is `nullable: true`. Other rules:
//  - `type` is one of the Type enum: STRING, NUMBER, INTEGER, BOOLEAN, ARRAY, OBJECT (any case is taken);
//  - `format`: NUMBER float, double; INTEGER int32, int64; STRING enum, date-time (the Gemini API's own list for
//    strings: "must be either 'enum' or 'date-time'");
//  - `enum` is `string[]`;
//  - an ARRAY has `items`; an OBJECT's properties are non-empty (the API answers "properties: should be
//    non-empty for OBJECT type"; a function without params leaves `parameters` unset);
//  - `required` names only properties.
// ---------------------------------------------------------------------------------------------------------------

const GEMINI_KEYWORDS = new Set([
  'type',
  'format',
  'description',
  'nullable',
  'enum',
  'properties',
  'required',
  'items',
  'minItems',
  'maxItems',
]);
const GEMINI_TYPES = new Set(['STRING', 'NUMBER', 'INTEGER', 'BOOLEAN', 'ARRAY', 'OBJECT']);
const GEMINI_FORMATS: Record<string, Set<string>> = {
  STRING: new Set(['enum', 'date-time']),
  NUMBER: new Set(['float', 'double']),
  INTEGER: new Set(['int32', 'int64']),
};

/** Problems of a FunctionDeclaration's `parameters` (undefined: a function without params, which is fine). */
export function geminiProblems(parameters: Json | undefined): string[] {
  if (parameters === undefined) return [];
  const problems: string[] = [];
  if (String(parameters.type).toUpperCase() !== 'OBJECT') problems.push('root: parameters must be an OBJECT');
  walkGemini(parameters, 'root', problems);
  return problems;
}

function walkGemini(node: Json, at: string, problems: string[]): void {
  for (const key of Object.keys(node))
    if (!GEMINI_KEYWORDS.has(key)) problems.push(`${at}: "${key}" is not a field of Gemini's Schema`);
  const type = typeof node.type === 'string' ? node.type.toUpperCase() : undefined;
  if (type === undefined || !GEMINI_TYPES.has(type))
    problems.push(`${at}: type ${JSON.stringify(node.type)} is not one of ${[...GEMINI_TYPES].join(', ')}`);
  if (node.format !== undefined && !GEMINI_FORMATS[type ?? '']?.has(node.format as string))
    problems.push(`${at}: format ${String(node.format)} is not supported for ${type}`);
  if (node.enum !== undefined && !(node.enum as unknown[]).every((value) => typeof value === 'string'))
    problems.push(`${at}: enum values must be strings`);
  if (type === 'ARRAY') {
    if (node.items === undefined) problems.push(`${at}: an ARRAY needs items`);
    else walkGemini(node.items as Json, `${at}.items`, problems);
  }
  if (type === 'OBJECT') {
    const properties = (node.properties ?? {}) as Record<string, Json>;
    if (Object.keys(properties).length === 0)
      problems.push(`${at}: an OBJECT's properties must be non-empty`);
    for (const [name, property] of Object.entries(properties))
      walkGemini(property, `${at}.${name}`, problems);
    for (const name of (node.required ?? []) as string[])
      if (!(name in properties)) problems.push(`${at}: required names ${name}, which is no property`);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// What Gemini's adapters do to a tool's JSON Schema before it becomes `parameters`. One published schema cannot
// pass both rule sets as it is: OpenAI's strict mode requires `additionalProperties: false` on every object and
// the optional as a union with null, Gemini's Schema has no additionalProperties and no null type. Every adapter
// bridges that the same way, and this is that conversion, no more:
//  - the Vercel AI SDK before @ai-sdk/google 4.0.70, convertJSONSchemaToOpenAPISchema
//    (github.com/vercel/ai packages/google/src/convert-json-schema-to-openapi-schema.ts; 4.0.70 removed it and sends
//    the JSON Schema unchanged as the declaration's `parametersJsonSchema`, vercel/ai pull request 20757): keeps description,
//    required, format, type, enum (const → enum), properties, items, anyOf/allOf/oneOf, minLength — drops every
//    other keyword (additionalProperties, $schema, pattern, maxLength, minimum, …); `anyOf: [X, {type: null}]`
//    → X with `nullable: true`; a type list with null → `nullable: true`; an object without properties at the
//    root → no parameters;
//  - LangChain, @langchain/google-genai and @langchain/google-common removeAdditionalProperties: deletes
//    additionalProperties, $schema and strict everywhere; an anyOf/oneOf of one schema and null → that schema
//    with `nullable: true`; a type list [X, "null"] → X, `nullable: true` (google-common's adjustObjectType).
// The published schemas write a nullable param as a type list (model-schema.ts), which both handle.
// Where the two differ (the AI SDK drops pattern and maxLength, LangChain passes them on; LangChain keeps an
// empty root object), the published schemas hold none of it, so both give the same `parameters`.
// ---------------------------------------------------------------------------------------------------------------

const CONVERSION_DROPS = new Set(['additionalProperties', '$schema', 'strict']);

export function geminiParametersOf(schema: Json): Json | undefined {
  const properties = (schema.properties ?? {}) as Json;
  if (schema.type === 'object' && Object.keys(properties).length === 0) return undefined;
  return toGemini(schema);
}

function toGemini(node: Json): Json {
  const result: Json = {};
  for (const [key, value] of Object.entries(node)) {
    if (CONVERSION_DROPS.has(key)) continue;
    if (key === 'const') result.enum = [value];
    else if (key === 'properties')
      result.properties = Object.fromEntries(
        Object.entries(value as Record<string, Json>).map(([name, p]) => [name, toGemini(p)]),
      );
    else if (key === 'items') result.items = toGemini(value as Json);
    else if (key === 'anyOf') Object.assign(result, unionToGemini(value as Json[]));
    else if (key === 'type' && Array.isArray(value)) Object.assign(result, typeListToGemini(value));
    else result[key] = value;
  }
  return result;
}

function unionToGemini(branches: Json[]): Json {
  const others = branches.filter((branch) => branch.type !== 'null');
  if (others.length === 1 && others.length < branches.length)
    return { ...toGemini(others[0] as Json), nullable: true };
  // A union of several schemas stays a union: Gemini's subset refuses it (the checker says so).
  return { anyOf: branches.map(toGemini) };
}

function typeListToGemini(types: unknown[]): Json {
  const others = types.filter((type) => type !== 'null');
  return others.length === types.length ? { type: types } : { type: others[0], nullable: true };
}
