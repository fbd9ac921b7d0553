// Property-based fuzzing of every operation of the OpenAPI document the server publishes (issue 27: Schemathesis
// found the document and the server disagreeing; this is the same check in JavaScript, in `npm test`).
//
// For each operation, fast-check generates requests from the document's own schemas (path, query, body) with a
// fixed seed: path parameters are real ids made in before(), so cases reach the handlers, and each operation is
// called as its `security` asks (a session JWT, an agent's API key, or nothing).
//  - positive cases (valid per the document): never a 5xx, never a 400 (whatever its code: VALIDATION_ERROR,
//    OAUTH_INVALID_REQUEST…) unless the refusal is one of the rules the document states in words because a schema
//    cannot (DOCUMENTED_RULES), and the answer fits the schema documented for its status;
//  - negative cases (one step away: a node of another type, a required field missing, an unknown field, a value
//    out of bounds — kept only when Ajv says the document forbids it): always a 4xx, never a 2xx or a 5xx, and
//    also an answer that fits the document.
// Beside the operations, what a protocol fuzzer (Schemathesis) also sends:
//  - every path, with methods it does not have — methods no route has (QUERY without a Content-Type, PROPFIND, …),
//    a standard one, and OPTIONS: 405 with `Allow` naming exactly the methods the document gives that path (a
//    concrete path beside a templated one, /sessions/end-others beside /sessions/{id}, has its own);
//  - POST /mcp with JSON-RPC ids MCP does not allow (floats, integers past 2^53, objects, arrays, booleans, null):
//    a JSON-RPC error -32600 with id null, never the id echoed back, and an answer that fits the document.
// Afterwards the ledger still verifies. FUZZ_SEED and FUZZ_CASES (per operation and kind) explore further.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { z } from 'zod';
import { toolByName, toolInputJsonSchema } from '../src/tools/registry.ts';
import { assertDocumented } from './support/documented.ts';
import { assertLedgerOk } from './support/foundation.ts';
import { type Harness, startHarness, storeTargets } from './support/harness.ts';
import { call, signupUser } from './support/http.ts';
import { arbitraryOf, type Mutation, mutationsOf, type Schema } from './support/schema-arbitrary.ts';

const SEED = Number(process.env.FUZZ_SEED ?? 27);
const POSITIVE_CASES = Number(process.env.FUZZ_CASES ?? 25);
const NEGATIVE_CASES = Number(process.env.FUZZ_CASES ?? 25);
const OUTSIDE = `0x${'ab'.repeat(20)}`;

// biome-ignore lint/suspicious/noExplicitAny: the document is JSON
type Json = any;

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  schema: Schema;
}

interface Operation {
  id: string;
  method: string;
  path: string;
  security: 'none' | 'user' | 'apiKey';
  parameters: Parameter[];
  body: { schema: Schema; required: boolean } | null;
}

/** A request as the generator sees it: one object, so one schema validates all of it. */
interface Input {
  path: Record<string, string>;
  query: Record<string, string>;
  body?: unknown;
}

/**
 * Operations not fuzzed here, with the reason: they exist on the evm rail only, and the harness runs the sandbox
 * rail (a chain for every run would cost minutes), whose document does not list them — asserted below, so this
 * list cannot go stale silently.
 */
const EVM_ONLY: Record<string, string> = {
  pendingDeposits: 'deposits seen on the chain, not yet confirmed: evm rail only',
  x402Fetch: 'x402 payments: evm rail only',
  x402Sign: 'x402 payments: evm rail only',
};

/**
 * Refusals a schema cannot state, stated in the operation's description instead: a positive case answered 400
 * passes when its message matches (and, where given, the rule holds for that request).
 */
interface DocumentedRule {
  ops: readonly string[] | '*';
  message: RegExp;
  reason: string;
  holds?: (input: Input) => boolean;
}
const MIXED_CASE_ADDRESS = /0x(?=[0-9a-fA-F]*[a-f])(?=[0-9a-fA-F]*[A-F])[0-9a-fA-F]{40}/;
const WITH_ADDRESSES = [
  'addWithdrawalAddress',
  'withdrawMaster',
  'createPolicy',
  'updatePolicy',
  'simulatePolicies',
  'sendPayment',
  'requestApproval',
  'checkPayment',
];
const DOCUMENTED_RULES: DocumentedRule[] = [
  {
    ops: '*',
    message: /prototype poisoning/,
    reason:
      'no body may hold a "__proto__" key (or constructor.prototype), as the document’s description says',
  },
  {
    ops: WITH_ADDRESSES,
    message: /invalid EIP-55 checksum/,
    reason:
      'a mixed-case address must carry its EIP-55 checksum: keccak-256 is no pattern, the description says it',
    holds: (input) => MIXED_CASE_ADDRESS.test(JSON.stringify(input.body)),
  },
  {
    ops: ['signup', 'changePassword', 'resetPassword'],
    message: /too easy to guess/,
    reason:
      'the strength estimate (zxcvbn, at least 3 of 4) is named in the description; no pattern can state it',
  },
  {
    ops: ['signup'],
    message: /invitationToken: unknown/,
    reason: 'an invitation token is a secret the server issued: the description says any other is a 400',
  },
  {
    ops: ['createKey'],
    message: /expiresAt must be in the future/,
    reason: 'relative to the server clock: the description says it',
  },
  {
    ops: ['registerPasskey'],
    message: /not a valid registration for this challenge/,
    reason: 'a passkey answer is verified cryptographically against the options just issued',
  },
  {
    ops: ['stepUp'],
    message: /password is required/,
    reason: 'without a second factor only the password proves presence (the description says so)',
  },
  {
    ops: ['createPolicy', 'updatePolicy'],
    message: /IANA timezone/,
    reason: 'the time zones Intl knows are the server’s; the description says so',
  },
  {
    ops: ['createPolicy', 'updatePolicy'],
    message: /start and end must differ/,
    reason: 'a rule across two fields, in the params’ description',
  },
  {
    ops: [
      'createAgentWallet',
      'createKey',
      'createPolicy',
      'createWebhook',
      'addWithdrawalAddress',
      'registerPasskey',
    ],
    message: /can have at most|holds at most|^at most \d+ passkeys/,
    reason: 'how many a user or wallet may have: state, not shape; each description names its bound',
  },
  {
    ops: ['oauthConsentPreview', 'oauthConsent', 'oauthDeny'],
    message: /client_id|client metadata|redirect_uri is not one|resource must be this service/,
    reason:
      'an authorization request names a registered client (or its metadata document), one of its redirect URIs and ' +
      'this service’s MCP endpoint: state and the server’s own URL, which the description names',
  },
  {
    ops: ['updatePolicy'],
    message: /params/,
    reason:
      'the params must be those of the policy’s own type (spend_cap_per_tx here), as the description says',
    holds: (input) => !fitsSpendCapPerTx(input),
  },
];

/** Whether an updatePolicy body's params are spend_cap_per_tx params (the fuzzed policy's type). */
let fitsSpendCapPerTx: (input: Input) => boolean = () => false;

/** The operation's documented answer for this status, if any (itself or its family). */
function documentedStatus(doc: Json, op: Operation, status: number): boolean {
  const responses = doc.paths[op.path][op.method.toLowerCase()].responses;
  return responses[String(status)] !== undefined || responses[`${String(status)[0]}XX`] !== undefined;
}

function operationsOf(doc: Json): Operation[] {
  const operations: Operation[] = [];
  for (const [path, methods] of Object.entries<Json>(doc.paths)) {
    for (const [method, op] of Object.entries<Json>(methods)) {
      const json = op.requestBody?.content?.['application/json'];
      operations.push({
        id: op.operationId,
        method: method.toUpperCase(),
        path,
        security: securityOf(op),
        parameters: op.parameters ?? [],
        body: json === undefined ? null : { schema: json.schema, required: op.requestBody.required === true },
      });
    }
  }
  return operations;
}

function securityOf(op: Json): Operation['security'] {
  const scheme = Object.keys(op.security?.[0] ?? {})[0];
  return scheme === 'userJwt' ? 'user' : scheme === 'agentApiKey' ? 'apiKey' : 'none';
}

/** The whole request as one JSON Schema: {path, query, body}. */
function inputSchema(op: Operation, pathValues: Record<string, string>): Record<string, Schema> {
  const group = (where: 'path' | 'query', fixed: boolean) => {
    const params = op.parameters.filter((p) => p.in === where);
    return {
      type: 'object',
      properties: Object.fromEntries(
        params.map((p) => [
          p.name,
          fixed && pathValues[p.name] !== undefined
            ? { ...(p.schema as object), const: pathValues[p.name] }
            : p.schema,
        ]),
      ),
      required: params.filter((p) => p.required === true).map((p) => p.name),
      additionalProperties: false,
    };
  };
  return {
    documented: {
      type: 'object',
      properties: {
        path: group('path', false),
        query: group('query', false),
        ...(op.body === null ? {} : { body: op.body.schema }),
      },
      required: ['path', 'query', ...(op.body?.required ? ['body'] : [])],
      additionalProperties: false,
    },
    generated: {
      type: 'object',
      properties: {
        path: group('path', true),
        query: group('query', false),
        ...(op.body === null ? {} : { body: op.body.schema }),
      },
      required: ['path', 'query', ...(op.body === null ? [] : ['body'])],
      additionalProperties: false,
    },
  };
}

const ajv = new Ajv2020({ strict: false, allErrors: false });
// The formats the document uses, checked as the server checks them.
ajv.addFormat('date-time', (s: string) => z.iso.datetime({ offset: true }).safeParse(s).success);
ajv.addFormat('email', (s: string) => z.email().safeParse(s).success);
ajv.addFormat('uri', (s: string) => URL.canParse(s));

interface Context {
  /** Real ids for the operation's path parameters. */
  pathValues(op: Operation): Promise<Record<string, string>>;
  /**
   * The credential its `security` asks for: the agent's API key, or a session of the fuzzing user — a live
   * session of another user for the operations that end sessions (logout, end-others, password change), and the
   * owner of another organization for PATCH /organization.
   */
  token(op: Operation): Promise<string | undefined>;
  /** The fuzzing user's session or the agent's key as `security` asks, never a fresh login (cheap, for probes). */
  credential(security: Operation['security']): string | undefined;
  /** What became of a request sent with token(op): a session that may be gone is not handed out again. */
  answered(op: Operation, answer: Answer): void;
}

function urlOf(op: Operation, input: Input): string {
  const path = op.path.replace(/\{([^}]+)\}/g, (_, name: string) =>
    encodeURIComponent(input.path[name] ?? ''),
  );
  const query = new URLSearchParams(input.query).toString();
  return query === '' ? path : `${path}?${query}`;
}

const documentOf = new WeakMap<Harness, Json>();

interface Answer {
  status: number;
  body: Json;
  raw: string;
}

async function send(h: Harness, op: Operation, input: Input, token: string | undefined): Promise<Answer> {
  const url = urlOf(op, input);
  // What every JSON client may send; POST /mcp's transport asks for both (its description says so).
  const headers: Record<string, string> = { accept: 'application/json, text/event-stream' };
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  const hasBody = Object.hasOwn(input, 'body') && input.body !== undefined;
  if (hasBody) headers['content-type'] = 'application/json';
  const response = await h.app.inject({
    method: op.method as 'GET',
    url,
    headers,
    ...(hasBody ? { payload: JSON.stringify(input.body) } : {}),
  });
  // Throws when a JSON body's status is undocumented or the body does not fit the schema documented for it.
  await assertDocumented(h.app, { method: op.method, url }, response);
  if (!documentedStatus(documentOf.get(h) as Json, op, response.statusCode))
    throw new Error(`answered ${response.statusCode}, which the operation does not document`);
  let body: Json;
  try {
    body = response.body === '' ? undefined : JSON.parse(response.body);
  } catch {
    body = undefined;
  }
  return { status: response.statusCode, body, raw: response.body };
}

function show(input: Input): string {
  const text = JSON.stringify(input);
  return text.length > 400 ? `${text.slice(0, 400)}…` : text;
}

interface Outcome {
  failures: string[];
  /** Statuses answered, for the report: positive and negative cases. */
  positive: Record<number, number>;
  negative: Record<number, number>;
  /** Positive cases refused by a documented rule, by the rule's message. */
  excused: Record<string, number>;
}

async function fuzzOperation(h: Harness, op: Operation, ctx: Context): Promise<Outcome> {
  const failures: string[] = [];
  const seen: Outcome = { failures, positive: {}, negative: {}, excused: {} };
  const pathValues = await ctx.pathValues(op);
  const schemas = inputSchema(op, pathValues);
  const validate: ValidateFunction = ajv.compile(schemas.documented as object);
  // A seed of its own per operation: the same seed everywhere would send every operation the same values (the
  // same idempotency keys to fund and withdraw, which is a conflict, not a fuzzed case).
  const seed = seedOf(op.id);
  const generated = fc.sample(arbitraryOf(schemas.generated as Schema), {
    seed,
    numRuns: POSITIVE_CASES * 4,
  });
  const positives = generated.filter((input) => validate(input)).slice(0, POSITIVE_CASES) as Input[];
  if (positives.length < Math.min(POSITIVE_CASES, 3)) {
    failures.push(`the generator made only ${positives.length} valid requests of ${generated.length}`);
    return seen;
  }

  for (const input of positives) {
    const where = `positive ${show(input)}`;
    try {
      const answer = await send(h, op, input, await ctx.token(op));
      ctx.answered(op, answer);
      seen.positive[answer.status] = (seen.positive[answer.status] ?? 0) + 1;
      if (answer.status >= 500) failures.push(`${where} → ${answer.status} ${answer.raw.slice(0, 300)}`);
      else if (answer.status === 400) {
        const rule = DOCUMENTED_RULES.find(
          (r) =>
            (r.ops === '*' || r.ops.includes(op.id)) &&
            r.message.test(answer.body.error.message) &&
            (r.holds === undefined || r.holds(input)),
        );
        if (rule === undefined) failures.push(`${where} → 400 ${answer.body.error.message}`);
        else seen.excused[rule.message.source] = (seen.excused[rule.message.source] ?? 0) + 1;
      }
    } catch (error) {
      failures.push(`${where}: ${error instanceof Error ? error.message.slice(0, 600) : String(error)}`);
    }
  }

  // One step away from the valid cases, kept only where the document forbids the result.
  const mutants = positives.slice(0, 4).flatMap((input) =>
    mutationsOf(input)
      .filter(onTheWire)
      .map((m) => ({ ...m, input: m.value as Input }))
      .filter((m) => !validate(m.input)),
  );
  const picked =
    mutants.length === 0 ? [] : fc.sample(fc.constantFrom(...mutants), { seed, numRuns: NEGATIVE_CASES });
  for (const mutant of new Set(picked)) {
    const where = `negative (${mutant.kind} ${mutant.at}) ${show(mutant.input)}`;
    try {
      const answer = await send(h, op, mutant.input, await ctx.token(op));
      ctx.answered(op, answer);
      seen.negative[answer.status] = (seen.negative[answer.status] ?? 0) + 1;
      if (answer.status < 400 || answer.status >= 500)
        failures.push(`${where} → ${answer.status} ${answer.raw.slice(0, 300)}`);
    } catch (error) {
      failures.push(`${where}: ${error instanceof Error ? error.message.slice(0, 600) : String(error)}`);
    }
  }
  return seen;
}

/**
 * A mutation a client can send: anything in the body (its absence included); a path or query parameter removed
 * or replaced by other text (they are text on the wire). An unknown query parameter is no schema violation in
 * OpenAPI, so none is added.
 */
function onTheWire(m: Mutation): boolean {
  if (m.at === '/body' || m.at.startsWith('/body/')) return true;
  if (!/^\/(path|query)\/[^/]+$/.test(m.at) || m.kind === 'added') return false;
  // An empty (or absent) path segment names another path (…/transactions/ is the list): not this operation.
  if (m.at.startsWith('/path/'))
    return (
      m.kind === 'replaced' && valueAt(m.value, m.at) !== '' && typeof valueAt(m.value, m.at) === 'string'
    );
  return m.kind === 'removed' || typeof valueAt(m.value, m.at) === 'string';
}

function seedOf(id: string): number {
  let hash = SEED;
  for (const char of id) hash = (Math.imul(hash, 31) + char.charCodeAt(0)) | 0;
  return hash;
}

function valueAt(root: unknown, pointer: string): unknown {
  let node = root as Json;
  for (const part of pointer.split('/').slice(1)) node = node?.[part];
  return node;
}

/** Methods Node's HTTP parser takes that no route here has (CONNECT opens a tunnel: it is no request). */
const FOREIGN_METHODS = [
  'PROPFIND',
  'PROPPATCH',
  'SEARCH',
  'REPORT',
  'LOCK',
  'UNLOCK',
  'MKCOL',
  'COPY',
  'MOVE',
  'PURGE',
  'LINK',
  'UNLINK',
  'MERGE',
  'NOTIFY',
  'SUBSCRIBE',
  'ACL',
] as const;
const STANDARD_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'TRACE'] as const;

/** What the document says a path answers: its own operations' methods (HEAD wherever GET is), as `Allow` lists. */
function documentedAllow(item: Json): string[] {
  const methods = Object.keys(item).map((method) => method.toUpperCase());
  if (methods.includes('GET')) methods.push('HEAD');
  return methods.sort();
}

/**
 * Every path of the document with methods it does not have: OPTIONS, QUERY (a body method, sent without a
 * Content-Type), one method no route has and one standard method it lacks, each picked per path from the seed.
 * Each must be 405 with the path's own methods in `Allow`, whatever the credential. The failures, as text.
 */
async function probeMethods(h: Harness, doc: Json, ctx: Context): Promise<string[]> {
  const failures: string[] = [];
  const paths = Object.entries<Json>(doc.paths);
  const statics = new Set(paths.flatMap(([path]) => path.split('/')));
  const picks = fc.sample(
    fc.record({
      // A parameter's value that is no static segment of any path (it would name that path instead).
      value: fc.stringMatching(/^[A-Za-z0-9_-]{1,24}$/).filter((value) => !statics.has(value)),
      foreign: fc.constantFrom(...FOREIGN_METHODS),
      standard: fc.nat(),
    }),
    { seed: SEED, numRuns: paths.length },
  );
  for (const [i, [template, item]] of paths.entries()) {
    const pick = picks[i];
    assert.ok(pick !== undefined);
    const allow = documentedAllow(item);
    const lacking = STANDARD_METHODS.filter((method) => !allow.includes(method));
    const standard = lacking[pick.standard % Math.max(1, lacking.length)];
    const url = template.replace(/\{[^}]+\}/g, pick.value);
    const token = ctx.credential(securityOf(Object.values<Json>(item)[0]));
    const headers: Record<string, string> = token === undefined ? {} : { authorization: `Bearer ${token}` };
    for (const method of ['OPTIONS', 'QUERY', pick.foreign, ...(standard === undefined ? [] : [standard])]) {
      const answer = await h.app.inject({ method: method as 'GET', url, headers });
      const where = `${method} ${url}`;
      if (answer.statusCode !== 405) {
        failures.push(`${where} → ${answer.statusCode} ${answer.body.slice(0, 200)}`);
        continue;
      }
      if (answer.headers.allow !== allow.join(', '))
        failures.push(`${where}: Allow ${answer.headers.allow}, the document says ${allow.join(', ')}`);
      if (method !== 'HEAD' && JSON.parse(answer.body).error?.code !== 'METHOD_NOT_ALLOWED')
        failures.push(`${where}: ${answer.body.slice(0, 200)}`);
    }
  }
  return failures;
}

/**
 * JSON-RPC ids MCP does not allow, as JSON text: numbers that are no integer JSON holds exactly (fractions, the
 * smallest and largest doubles, integers past 2^53), and every type but string and number (null included).
 */
const hostileId: fc.Arbitrary<string> = fc.oneof(
  fc
    .double({ noNaN: true, noDefaultInfinity: true })
    .filter((x) => !Number.isSafeInteger(x))
    .map((x) => JSON.stringify(x)),
  fc.constantFrom('2.6e-42', '1.5', '-0.5', '1e300', '9007199254740993', '12345678901234567890123'),
  fc.bigInt({ min: 2n ** 53n, max: 2n ** 100n }).map((n) => (n % 2n === 0n ? `${n}` : `-${n}`)),
  fc
    .jsonValue()
    .filter((v) => typeof v === 'object' || typeof v === 'boolean')
    .map((v) => JSON.stringify(v)),
);

const MODERN_META = JSON.stringify({
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'fuzz', version: '1' },
});
const LEGACY = { 'mcp-protocol-version': '2025-06-18' };

/** POST /mcp bodies around an id (raw JSON text): each kind of message, on each revision, and in a batch. */
const HOSTILE_MESSAGES: Record<string, (id: string) => { body: string; headers: Record<string, string> }> = {
  ping: (id) => ({ body: `{"jsonrpc":"2.0","id":${id},"method":"ping"}`, headers: LEGACY }),
  initialize: (id) => ({
    body:
      `{"jsonrpc":"2.0","id":${id},"method":"initialize","params":{"protocolVersion":"2025-06-18",` +
      `"capabilities":{},"clientInfo":{"name":"fuzz","version":"1"}}}`,
    headers: {},
  }),
  modern: (id) => ({
    body: `{"jsonrpc":"2.0","id":${id},"method":"tools/list","params":{"_meta":${MODERN_META}}}`,
    headers: { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' },
  }),
  batch: (id) => ({
    body: `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":${id},"method":"ping"}]`,
    headers: LEGACY,
  }),
  response: (id) => ({ body: `{"jsonrpc":"2.0","id":${id},"result":{}}`, headers: LEGACY }),
};

/** Hostile ids to POST /mcp: each a 400 JSON-RPC -32600 with id null, as the document says. The failures. */
async function probeJsonRpcIds(h: Harness, doc: Json, key: string | undefined): Promise<string[]> {
  const failures: string[] = [];
  const cases = fc.sample(fc.tuple(fc.constantFrom(...Object.entries(HOSTILE_MESSAGES)), hostileId), {
    seed: SEED,
    numRuns: 30,
  });
  const op = operationsOf(doc).find((o) => o.id === 'mcp');
  assert.ok(op !== undefined, 'POST /mcp is in the document');
  for (const [[kind, message], id] of cases) {
    const { body, headers } = message(id);
    const where = `${kind} with id ${id.slice(0, 80)}`;
    const answer = await h.app.inject({
      method: 'POST',
      url: '/mcp',
      headers: {
        accept: 'application/json, text/event-stream',
        'content-type': 'application/json',
        authorization: `Bearer ${key}`,
        ...headers,
      },
      payload: body,
    });
    try {
      await assertDocumented(h.app, { method: 'POST', url: '/mcp' }, answer);
      assert.ok(documentedStatus(doc, op, answer.statusCode), `${answer.statusCode} is undocumented`);
      const rpc = JSON.parse(answer.body);
      assert.deepEqual([answer.statusCode, rpc.jsonrpc, rpc.error?.code], [400, '2.0', -32600]);
      assert.equal(rpc.id, null);
    } catch (error) {
      const message = error instanceof Error ? error.message.slice(0, 300) : String(error);
      failures.push(`${where}: ${message} (${answer.statusCode} ${answer.body.slice(0, 200)})`);
    }
  }
  return failures;
}

/** The ids and credentials the operations' path parameters and security ask for, all real. */
async function setUp(h: Harness): Promise<Context> {
  const main = await signupUser(h.app, 'fuzz');
  const sessions = await signupUser(h.app, 'fuzz-sessions');
  // An organization of its own for PATCH /organization: requireMfa: true on the main user's would answer every
  // later operation 403 MFA_ENROLLMENT_REQUIRED (the fuzzing user has no second factor), fuzzing none of them.
  const organizationOwner = await signupUser(h.app, 'fuzz-organization');
  const ok = async (reply: Promise<{ status: number; raw: string; body: Json }>, status = 200) => {
    const answer = await reply;
    assert.equal(answer.status, status, answer.raw);
    return answer.body.data;
  };
  await ok(main.api.post('/api/v1/wallet/sandbox/deposit', { amount: '1000000' }), 201);
  const wallet = await ok(main.api.post('/api/v1/agent-wallets', { label: 'fuzzed agent' }), 201);
  const spareWallet = await ok(main.api.post('/api/v1/agent-wallets', { label: 'frozen and unfrozen' }), 201);
  const policyWallet = await ok(main.api.post('/api/v1/agent-wallets', { label: 'policies' }), 201);
  await ok(main.api.post(`/api/v1/agent-wallets/${wallet.id}/fund`, { amount: '100000' }));
  const key = await ok(main.api.post(`/api/v1/agent-wallets/${wallet.id}/keys`, { label: 'fuzz' }), 201);
  const spareKey = await ok(
    main.api.post(`/api/v1/agent-wallets/${wallet.id}/keys`, { label: 'spare' }),
    201,
  );
  const keyToRotate = await ok(
    main.api.post(`/api/v1/agent-wallets/${wallet.id}/keys`, { label: 'rotated' }),
    201,
  );
  const policy = await ok(
    main.api.post(`/api/v1/agent-wallets/${policyWallet.id}/policies`, {
      type: 'spend_cap_per_tx',
      params: { limit: '1000' },
    }),
    201,
  );
  const sparePolicy = await ok(
    main.api.post(`/api/v1/agent-wallets/${policyWallet.id}/policies`, {
      type: 'spend_cap_daily',
      params: { limit: '1000' },
    }),
    201,
  );
  const hold = async () => {
    const reply = await call(
      h.app,
      'POST',
      '/mcp/v1/tools/request_approval',
      { params: { toAddress: OUTSIDE, amount: '1' } },
      { token: key.key },
    );
    assert.equal(reply.status, 200, reply.raw);
    return reply.body.data.txId as string;
  };
  const toApprove = await hold();
  const toReject = await hold();
  const webhook = await ok(main.api.post('/api/v1/webhooks', { url: 'https://127.0.0.1:9/fuzz' }), 201);
  const spareWebhook = await ok(main.api.post('/api/v1/webhooks', { url: 'https://127.0.0.1:9/spare' }), 201);
  // An event for the endpoint, so it has a delivery to redeliver.
  await ok(main.api.post(`/api/v1/agent-wallets/${spareWallet.id}/freeze`));
  await ok(main.api.post(`/api/v1/agent-wallets/${spareWallet.id}/unfreeze`));
  const deliveries = await ok(main.api.get(`/api/v1/webhooks/${webhook.id}/deliveries`));
  await ok(main.api.post('/api/v1/wallet/withdrawal-addresses', { address: OUTSIDE, label: 'fuzz' }), 201);
  const spareBook = await ok(
    main.api.post('/api/v1/wallet/withdrawal-addresses', { address: `0x${'cd'.repeat(20)}`, label: 'spare' }),
    201,
  );
  const withdrawal = await ok(
    main.api.post('/api/v1/wallet/withdrawals', { toAddress: OUTSIDE, amount: '1' }),
    201,
  );

  const loginSessions = async () => {
    const reply = await call(h.app, 'POST', '/api/v1/auth/login', {
      email: sessions.email,
      password: sessions.password,
    });
    assert.equal(reply.status, 200, reply.raw);
    return reply.body.data.token as string;
  };
  const sessionIdOf = (token: string) =>
    JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString()).jti as string;
  const SESSION_ENDING = new Set(['logout', 'endSession', 'endOtherSessions', 'changePassword']);
  const credential = (security: Operation['security']) =>
    security === 'none' ? undefined : security === 'apiKey' ? key.key : main.token;
  // A session of the other user, kept until an answer says it may be gone (a success, which may have ended it, or
  // 401 UNAUTHORIZED): each login is an argon2 verification, once most of these operations' time.
  let spareSession: string | null = null;

  const byName: Record<string, string> = {
    walletId: wallet.id,
    keyId: spareKey.id,
    policyId: policy.id,
    transactionId: toApprove,
    deliveryId: deliveries.items[0]?.id ?? 'no-delivery',
  };
  const byOperation: Record<string, Record<string, string>> = {
    freezeAgentWallet: { walletId: spareWallet.id },
    unfreezeAgentWallet: { walletId: spareWallet.id },
    createPolicy: { walletId: policyWallet.id },
    listPolicies: { walletId: policyWallet.id },
    updatePolicy: { walletId: policyWallet.id },
    deletePolicy: { walletId: policyWallet.id, policyId: sparePolicy.id },
    simulatePolicies: { walletId: policyWallet.id },
    policyChanges: { walletId: policyWallet.id },
    rejectTransaction: { transactionId: toReject },
    rotateKey: { keyId: keyToRotate.id },
    removePasskey: { id: 'no-such-passkey' },
    removeWithdrawalAddress: { id: spareBook.id },
    getWithdrawal: { id: withdrawal.id },
    updateWebhook: { id: webhook.id },
    deleteWebhook: { id: spareWebhook.id },
    rotateWebhookSecret: { id: webhook.id },
    webhookDeliveries: { id: webhook.id },
    redeliverWebhook: { id: webhook.id },
  };
  return {
    async pathValues(op) {
      const values = { ...byName, ...byOperation[op.id] };
      if (op.id === 'endSession') values.id = sessionIdOf(await loginSessions());
      return values;
    },
    async token(op) {
      if (op.security === 'user' && SESSION_ENDING.has(op.id)) {
        spareSession ??= await loginSessions();
        return spareSession;
      }
      if (op.id === 'updateOrganization') return organizationOwner.token;
      return credential(op.security);
    },
    credential,
    answered(op, answer) {
      if (!SESSION_ENDING.has(op.id)) return;
      if (answer.status < 300 || answer.body?.error?.code === 'UNAUTHORIZED') spareSession = null;
    },
  };
}

// Probed before any suite is declared: a suite starts at once, and its synchronous generation would hold the
// event loop past the probe's timeout.
const targets = await storeTargets();

// The evm-only tools are not served by the sandbox harness, but their params are: the schema their operations
// publish and the validator that guards them must agree as every other operation's do (no chain needed).
describe('OpenAPI fuzz: the evm-only tools’ params and their validators agree', () => {
  for (const name of ['x402_fetch', 'x402_sign'] as const) {
    test(name, () => {
      const tool = toolByName(name);
      assert.ok(tool !== undefined);
      const schema = toolInputJsonSchema(tool);
      const validate = ajv.compile(schema);
      const valid = fc
        .sample(arbitraryOf(schema as Schema), { seed: seedOf(name), numRuns: POSITIVE_CASES * 4 })
        .filter((value) => validate(value));
      assert.ok(valid.length >= POSITIVE_CASES, `${valid.length} valid params generated`);
      for (const value of valid) {
        const parsed = tool.input.safeParse(value);
        assert.ok(parsed.success, `${JSON.stringify(value).slice(0, 300)}: ${parsed.error?.message}`);
      }
      const invalid = valid
        .slice(0, 4)
        .flatMap((value) => mutationsOf(value).filter((m) => !validate(m.value)));
      assert.ok(invalid.length > 0);
      for (const mutant of invalid) {
        assert.equal(
          tool.input.safeParse(mutant.value).success,
          false,
          `${mutant.kind} ${mutant.at} accepted`,
        );
      }
    });
  }
});

for (const target of targets) {
  describe(`OpenAPI fuzz: the document and the server agree (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    let doc: Json;
    let ctx: Context;

    before(async () => {
      h = await startHarness(target.name, 'openapi-fuzz', {
        env: { WEBHOOK_ALLOW_PRIVATE: 'true', WITHDRAWAL_ADDRESS_DELAY_SECONDS: '0' },
      });
      doc = (await call(h.app, 'GET', '/api/v1/openapi.json')).body;
      documentOf.set(h, doc);
      const perTx = doc.paths['/api/v1/agent-wallets/{walletId}/policies'].post.requestBody.content[
        'application/json'
      ].schema.oneOf.find((branch: Json) => branch.title === 'spend_cap_per_tx policy').properties.params;
      const validatePerTx = ajv.compile(perTx);
      fitsSpendCapPerTx = (input) => validatePerTx((input.body as Json)?.params ?? {});
      ctx = await setUp(h);
    });
    after(() => h?.close());

    test('every operation: valid requests are served, invalid ones refused, every answer as documented', async (t) => {
      const operations = operationsOf(doc);
      assert.ok(operations.length > 50, `${operations.length} operations`);
      for (const [id, reason] of Object.entries(EVM_ONLY)) {
        assert.ok(!operations.some((op) => op.id === id), `${id} is not in a sandbox server's document`);
        t.diagnostic(`${id} not fuzzed: ${reason}`);
      }
      for (const op of operations) {
        await t.test(`${op.method} ${op.path} (${op.id})`, async (st) => {
          const outcome = await fuzzOperation(h, op, ctx);
          st.diagnostic(
            `positive ${JSON.stringify(outcome.positive)} negative ${JSON.stringify(outcome.negative)}` +
              (Object.keys(outcome.excused).length === 0
                ? ''
                : ` documented refusals ${JSON.stringify(outcome.excused)}`),
          );
          assert.deepEqual(outcome.failures, []);
        });
      }
    });

    test('every path: a method it lacks is 405 with the document’s methods for that exact path in Allow', async () => {
      assert.deepEqual(await probeMethods(h, doc, ctx), []);
    });

    test('POST /mcp: a JSON-RPC id MCP does not allow is -32600 with id null, never echoed', async () => {
      assert.deepEqual(await probeJsonRpcIds(h, doc, ctx.credential('apiKey')), []);
    });

    test('the ledger still verifies', () => assertLedgerOk(h));
  });
}
