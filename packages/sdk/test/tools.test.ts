// LLM tool definitions: generated from the server's registry (never a hand-kept copy), in Anthropic and
// OpenAI formats. (agent-client.test.ts checks that a running server lists the same.)
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { toolListing } from '../../server/src/tools/registry.ts';
import { anthropicTools, openaiTools, toolDefinitions } from '../src/index.ts';
import { TOOL_SPECS } from '../src/tools.generated.ts';

describe('tool definitions', () => {
  test('src/tools.generated.ts matches the server registry', () => {
    assert.deepEqual(
      JSON.parse(
        JSON.stringify(
          TOOL_SPECS.map(({ name, description, scope, inputSchema }) => ({
            name,
            description,
            scope,
            inputSchema,
          })),
        ),
      ),
      JSON.parse(JSON.stringify(toolListing())),
      'packages/sdk/src/tools.generated.ts is stale: run `npm run generate -w packages/sdk`',
    );
  });

  test('the paying tools (x402, paid_fetch, mpp_sign) are offered only for the evm rail, where they exist', () => {
    const evmOnly = ['x402_fetch', 'x402_sign', 'paid_fetch', 'mpp_sign'];
    assert.ok(!toolDefinitions().some((t) => evmOnly.includes(t.name)));
    assert.deepEqual(
      toolDefinitions({ rail: 'evm', names: ['x402_fetch', 'x402_sign'] }).map((t) => t.scope),
      ['write', 'write'],
    );
    assert.deepEqual(
      TOOL_SPECS.filter((t) => 'rails' in t).map((t) => t.name),
      evmOnly,
    );
  });

  test('check_payment takes x402 requirements only in its evm form, as that rail’s server lists it', () => {
    const params = (rail?: string) =>
      Object.keys(
        toolDefinitions({ names: ['check_payment'], ...(rail ? { rail } : {}) })[0]!.inputSchema.properties ??
          {},
      );
    assert.deepEqual(params(), ['toAddress', 'amount']);
    assert.deepEqual(params('sandbox'), ['toAddress', 'amount']);
    assert.deepEqual(params('evm'), ['toAddress', 'amount', 'paymentRequirements', 'challenge']);
    const evm = TOOL_SPECS.find((t) => t.name === 'check_payment')!;
    assert.deepEqual(
      JSON.parse(JSON.stringify({ name: evm.name, scope: evm.scope, ...evm.railForms!.evm })),
      JSON.parse(JSON.stringify(toolListing('evm').find((t) => t.name === 'check_payment'))),
      'packages/sdk/src/tools.generated.ts is stale: run `npm run generate -w packages/sdk`',
    );
  });

  test('anthropicTools: {name, description, input_schema} with an object schema', () => {
    const tools = anthropicTools();
    assert.deepEqual(
      tools.map((t) => t.name),
      ['check_balance', 'get_tx_history', 'send_payment', 'request_approval', 'check_payment'],
    );
    for (const tool of tools) {
      assert.deepEqual(Object.keys(tool).sort(), ['description', 'input_schema', 'name']);
      assert.equal(tool.input_schema.type, 'object');
      assert.ok(tool.description.length > 20);
    }
    const pay = tools.find((t) => t.name === 'send_payment')!;
    // Every param required (OpenAI's strict mode); memo and idempotencyKey optional: they admit null (= absent).
    assert.deepEqual(pay.input_schema.required, ['toAddress', 'amount', 'memo', 'idempotencyKey']);
    assert.equal(pay.input_schema.additionalProperties, false);
    assert.equal((pay.input_schema.properties!.amount as { type: string }).type, 'string');
  });

  test('openaiTools: {type: "function", function: {name, description, parameters}}', () => {
    const tools = openaiTools();
    assert.equal(tools.length, 5);
    for (const tool of tools) {
      assert.deepEqual(Object.keys(tool).sort(), ['function', 'type']);
      assert.equal(tool.type, 'function');
      assert.deepEqual(Object.keys(tool.function).sort(), ['description', 'name', 'parameters', 'strict']);
      assert.equal(tool.function.strict, true);
      assert.equal(tool.function.parameters.type, 'object');
      // What strict mode needs of the root (the server's test/tool-schemas.test.ts holds every rule).
      assert.equal(tool.function.parameters.additionalProperties, false);
      assert.deepEqual(
        [...((tool.function.parameters.required as string[] | undefined) ?? [])].sort(),
        Object.keys(tool.function.parameters.properties ?? {}).sort(),
      );
    }
    assert.deepEqual(
      tools.map((t) => t.function.parameters),
      anthropicTools().map((t) => t.input_schema),
    );
  });

  test('filtering by scopes and names', () => {
    assert.deepEqual(
      anthropicTools({ scopes: ['read'] }).map((t) => t.name),
      ['check_balance', 'get_tx_history', 'check_payment'],
    );
    assert.deepEqual(
      openaiTools({ scopes: ['write'] }).map((t) => t.function.name),
      ['send_payment', 'request_approval'],
    );
    assert.equal(anthropicTools({ scopes: ['read', 'write'] }).length, 5);
    assert.deepEqual(
      toolDefinitions({ names: ['send_payment'] }).map((t) => [t.name, t.scope]),
      [['send_payment', 'write']],
    );
    assert.deepEqual(anthropicTools({ scopes: [] }), []);
  });

  test('every call returns fresh copies: changing one changes nothing else', () => {
    const first = anthropicTools();
    first[0]!.input_schema.properties = { hacked: true };
    (first[2]!.input_schema.required as string[]).push('extra');
    const second = anthropicTools();
    assert.deepEqual(second[0]!.input_schema.properties, {});
    assert.deepEqual(second[2]!.input_schema.required, ['toAddress', 'amount', 'memo', 'idempotencyKey']);
  });
});
