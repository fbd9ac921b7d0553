// Schemas every model accepts: each tool's published input schema — as GET /mcp/v1/tools and MCP tools/list serve
// it, on the sandbox rail and on the evm rail — passes OpenAI's strict function calling (held to its fine-tuned
// models' narrower subset too) and, after the conversion Gemini's adapters apply, Gemini's function-declaration
// subset (support/schema-rules.ts: the rules and their sources). evm-only params appear only on the evm rail.
// The limits the schemas no longer state are still the server's: a few are tried and answer VALIDATION_ERROR.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { toolListing, toolPublishedInputSchema, toolsFor } from '../src/tools/registry.ts';
import { type Agent, agentWithKey, createKey, tool } from './support/agent.ts';
import { anvilAvailable } from './support/anvil.ts';
import { type EvmWorld, evmEnv, startEvmWorld } from './support/evm.ts';
import { type Harness, startHarness } from './support/harness.ts';
import { call, expectError, signupUser } from './support/http.ts';
import { geminiParametersOf, geminiProblems, openAIStrictProblems } from './support/schema-rules.ts';

type Json = Record<string, unknown>;
interface Listed {
  name: string;
  inputSchema: Json;
}

/** Every problem of one published schema under both rule sets, named by where it was published. */
function problemsOf(where: string, schema: Json): string[] {
  return [
    ...openAIStrictProblems(schema).map((p) => `${where} OpenAI strict: ${p}`),
    ...openAIStrictProblems(schema, { fineTuned: true }).map((p) => `${where} OpenAI fine-tuned: ${p}`),
    ...geminiProblems(geminiParametersOf(schema)).map((p) => `${where} Gemini: ${p}`),
  ];
}

function assertEveryModelAccepts(where: string, tools: readonly Listed[]): void {
  assert.ok(tools.length >= 5, `${where}: ${tools.length} tools`);
  const problems = tools.flatMap((t) => problemsOf(`${where} ${t.name}`, t.inputSchema));
  assert.deepEqual(problems, []);
}

const propertiesOf = (tools: readonly Listed[], name: string) =>
  Object.keys((tools.find((t) => t.name === name)?.inputSchema.properties ?? {}) as Json);

describe('the rule sets themselves', () => {
  test('they refuse what the issue measured: optional params outside required, lengths, open objects', () => {
    const measured = {
      type: 'object',
      properties: {
        memo: { type: 'string', maxLength: 500 },
        headers: {
          type: 'object',
          propertyNames: { type: 'string' },
          additionalProperties: { type: 'string' },
        },
      },
      additionalProperties: false,
    };
    const openAI = openAIStrictProblems(measured).join('\n');
    assert.match(openAI, /memo: not in required/);
    assert.match(openAI, /"maxLength" is not in strict mode's subset/);
    assert.match(openAI, /"propertyNames"/);
    assert.match(openAI, /headers: additionalProperties must be false/);
    // Unconverted, Gemini refuses the root additionalProperties (what every tool failed on).
    assert.match(geminiProblems(measured).join('\n'), /root: "additionalProperties"/);
    assert.deepEqual(
      openAIStrictProblems({ type: 'object', properties: {}, required: [], additionalProperties: false }),
      [],
    );
  });

  test('the Gemini conversion: nullable for a union with null, no additionalProperties, no params for none', () => {
    const schema = {
      type: 'object',
      properties: { memo: { description: 'm', anyOf: [{ type: 'string' }, { type: 'null' }] } },
      required: ['memo'],
      additionalProperties: false,
    };
    assert.deepEqual(geminiParametersOf(schema), {
      type: 'object',
      properties: { memo: { description: 'm', type: 'string', nullable: true } },
      required: ['memo'],
    });
    assert.equal(
      geminiParametersOf({ type: 'object', properties: {}, additionalProperties: false }),
      undefined,
    );
  });

  test('a type list with null passes both, as nullable for Gemini; an enum holding null does not', () => {
    const schema = {
      type: 'object',
      properties: {
        memo: { description: 'm', type: ['string', 'null'] },
        page: { type: ['integer', 'null'] },
        headers: { type: ['array', 'null'], items: { type: 'string' } },
      },
      required: ['memo', 'page', 'headers'],
      additionalProperties: false,
    };
    assert.deepEqual(problemsOf('type list', schema), []);
    assert.deepEqual(geminiParametersOf(schema), {
      type: 'object',
      properties: {
        memo: { description: 'm', type: 'string', nullable: true },
        page: { type: 'integer', nullable: true },
        headers: { type: 'array', nullable: true, items: { type: 'string' } },
      },
      required: ['memo', 'page', 'headers'],
    });
    // Why a nullable enum cannot keep its enum beside the type list: null would be one of its values.
    const status = {
      ...schema,
      properties: { status: { type: ['string', 'null'], enum: ['pending', null] } },
    };
    assert.match(
      problemsOf('nullable enum', { ...status, required: ['status'] }).join('\n'),
      /enum values must be strings/,
    );
  });
});

/**
 * The params of a published schema that admit null, each as published: a type list, never an anyOf with null.
 * LangChain's MCP adapter drops an anyOf whose branches are not objects (simplifyJsonSchemaForLLM), and a model
 * behind it saw such a param with no type at all.
 */
function nullableParamProblems(where: string, schema: Json): string[] {
  const problems: string[] = [];
  for (const [name, property] of Object.entries((schema.properties ?? {}) as Record<string, Json>)) {
    const branches = (property.anyOf ?? []) as Json[];
    if (branches.some((branch) => branch.type === 'null'))
      problems.push(`${where}.${name}: null as an anyOf branch (${JSON.stringify(property).slice(0, 120)})`);
    if (Array.isArray(property.type) && property.enum !== undefined)
      problems.push(`${where}.${name}: an enum beside a type list`);
  }
  return problems;
}

describe('published schemas, as the registry builds them', () => {
  test('every param that admits null is a type list [T, "null"] (LangChain’s MCP adapter keeps its type)', () => {
    const problems: string[] = [];
    let nullable = 0;
    for (const rail of [null, 'sandbox', 'evm']) {
      for (const t of toolsFor(rail)) {
        for (const options of [{}, { idempotencyKeyRequired: true }]) {
          const schema = toolPublishedInputSchema(t, rail, options);
          problems.push(...nullableParamProblems(`${rail} ${t.name}`, schema));
          for (const property of Object.values((schema.properties ?? {}) as Record<string, Json>))
            if (Array.isArray(property.type) && property.type.includes('null')) nullable += 1;
        }
      }
    }
    assert.deepEqual(problems, []);
    assert.ok(nullable > 20, `${nullable} nullable params`);
    // A nullable enum says its values in words; the server still refuses any other value.
    const history = toolPublishedInputSchema(toolsFor(null).find((t) => t.name === 'get_tx_history')!, null);
    const status = (history.properties as Record<string, Json>).status as Json;
    assert.deepEqual(status.type, ['string', 'null']);
    for (const value of ['pending', 'processing', 'completed', 'rejected', 'expired', 'failed'])
      assert.ok(String(status.description).includes(`"${value}"`), String(status.description));
  });

  for (const rail of [null, 'sandbox', 'evm']) {
    test(`rail ${rail ?? '(every rail: the SDK)'}: the listing and the MCP form pass both rule sets`, () => {
      assertEveryModelAccepts(`listing(${rail})`, toolListing(rail));
      const mcp = toolsFor(rail).map((t) => ({
        name: t.name,
        inputSchema: toolPublishedInputSchema(t, rail, { idempotencyKeyRequired: true }),
      }));
      assertEveryModelAccepts(`mcp(${rail})`, mcp);
    });
  }

  test('evm-only params only on the evm rail; the form every rail takes has none', () => {
    assert.deepEqual(propertiesOf(toolListing('sandbox'), 'check_payment'), ['toAddress', 'amount']);
    assert.deepEqual(propertiesOf(toolListing(null), 'check_payment'), ['toAddress', 'amount']);
    assert.deepEqual(propertiesOf(toolListing('evm'), 'check_payment'), [
      'toAddress',
      'amount',
      'paymentRequirements',
      'challenge',
    ]);
  });
});

/** The tools GET /mcp/v1/tools and MCP tools/list serve on this server, each checked. */
async function checkServed(h: Harness, key: string, rail: string): Promise<Listed[]> {
  const rest = await call(h.app, 'GET', '/mcp/v1/tools', undefined, { token: key });
  assert.equal(rest.status, 200, rest.raw);
  assertEveryModelAccepts(`GET /mcp/v1/tools (${rail})`, rest.body.data.tools);
  const listed = await call(
    h.app,
    'POST',
    '/mcp',
    { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    { token: key, headers: { accept: 'application/json, text/event-stream' } },
  );
  assert.equal(listed.status, 200, listed.raw);
  assertEveryModelAccepts(`MCP tools/list (${rail})`, listed.body.result.tools);
  return rest.body.data.tools;
}

describe('served on the sandbox rail', () => {
  let h: Harness;
  let agent: Agent;
  before(async () => {
    h = await startHarness('sqlite', 'tool_schemas');
    agent = await agentWithKey(h);
  });
  after(() => h.close());

  test('GET /mcp/v1/tools and tools/list pass both rule sets; no evm-only param is offered', async () => {
    const tools = await checkServed(h, agent.key, 'sandbox');
    assert.ok(!tools.some((t) => t.name.startsWith('x402')));
    assert.deepEqual(propertiesOf(tools, 'check_payment'), ['toAddress', 'amount']);
  });

  test('the limits the schemas no longer state are still enforced: VALIDATION_ERROR', async () => {
    const pay = { toAddress: `0x${'ab'.repeat(20)}`, amount: '1' };
    const refused = [
      ['send_payment', { ...pay, memo: 'm'.repeat(501) }, /memo/],
      ['send_payment', { ...pay, idempotencyKey: 'k'.repeat(256) }, /idempotencyKey/],
      ['send_payment', { ...pay, idempotencyKey: '' }, /idempotencyKey/],
      ['request_approval', { ...pay, reason: 'r'.repeat(501) }, /reason/],
      ['send_payment', { ...pay, amount: '1.1234567' }, /amount/],
      ['send_payment', { ...pay, toAddress: '0x1234' }, /toAddress/],
      ['get_tx_history', { page: 0 }, /page/],
      ['get_tx_history', { limit: 101 }, /limit/],
    ] as const;
    for (const [name, params, message] of refused) {
      const reply = await tool(h, agent.key, name, params);
      expectError(reply, 400, 'VALIDATION_ERROR');
      assert.match(reply.body.error.message, message, `${name} ${JSON.stringify(params).slice(0, 80)}`);
    }
    // A null is absent, as strict mode sends it for every optional param it leaves out.
    const nulls = await tool(h, agent.key, 'get_tx_history', { page: null, limit: null, status: null });
    assert.equal(nulls.status, 200, nulls.raw);
  });
});

const probe = await anvilAvailable();

describe('served on the evm rail', { skip: probe.available ? false : probe.skip }, () => {
  let world: EvmWorld;
  let h: Harness;
  let key: string;
  before(async () => {
    world = await startEvmWorld();
    h = await startHarness('sqlite', 'tool_schemas_evm', { env: evmEnv(world) });
    // No sandbox deposit on this rail: an unfunded wallet is enough to list and to be refused.
    const owner = await signupUser(h.app);
    const wallet = await owner.api.post('/api/v1/agent-wallets', { label: 'schemas' });
    key = (await createKey(owner, wallet.body.data.id, { label: 'k' })).key;
  });
  after(async () => {
    await h?.close();
    await world?.anvil.stop();
  });

  test('GET /mcp/v1/tools and tools/list pass both rule sets, the x402 tools and their closed forms included', async () => {
    const tools = await checkServed(h, key, 'evm');
    assert.deepEqual(
      tools.map((t) => t.name).filter((name) => name.startsWith('x402')),
      ['x402_fetch', 'x402_sign'],
    );
    assert.ok(propertiesOf(tools, 'check_payment').includes('paymentRequirements'));
  });

  test('the closed forms are checked as the open ones were: VALIDATION_ERROR', async () => {
    const fetchParams = { url: 'https://example.com/', maxAmount: '1' };
    const refused = [
      [
        'x402_fetch',
        {
          ...fetchParams,
          headers: [
            { name: 'a', value: '1' },
            { name: 'A', value: '2' },
          ],
        },
        /twice/,
      ],
      ['x402_fetch', { ...fetchParams, headers: [{ name: 'bad name', value: '1' }] }, /header name/],
      ['x402_fetch', { ...fetchParams, headers: [{ name: 'x', value: 'v'.repeat(4097) }] }, /headers/],
      ['x402_fetch', { ...fetchParams, url: `https://example.com/${'p'.repeat(2048)}` }, /url/],
      ['x402_sign', { paymentRequirements: '{}', resource: 'r'.repeat(2049) }, /resource/],
      ['x402_sign', { paymentRequirements: 'not json' }, /not JSON/],
      ['x402_sign', { paymentRequirements: '[]' }, /paymentRequirements/],
      ['check_payment', { paymentRequirements: '42' }, /paymentRequirements/],
    ] as const;
    for (const [name, params, message] of refused) {
      const reply = await tool(h, key, name, params);
      expectError(reply, 400, 'VALIDATION_ERROR');
      assert.match(reply.body.error.message, message, `${name} ${JSON.stringify(params).slice(0, 80)}`);
    }
  });
});
