// Control and bidi characters in human text, found by an outside security test: CR, LF and U+202E were stored in a
// withdrawal address's label and reached the owner's alert email, where the right-to-left override disguised the
// address. Every label, name, description, memo and reason of every route and tool now refuses control (Cc),
// format (Cf: bidi, zero-width, tags), line-separator (Zl, Zp) and lone-surrogate (Cs) characters with a 400
// VALIDATION_ERROR naming the field, and stores nothing; the zero-width joiners real text needs stay allowed.
// http/schemas.ts humanText is the one place; the document check at the end keeps every such field on it.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { toolsFor } from '../src/tools/registry.ts';
import {
  type Agent,
  agentWithKey,
  decisionUrl,
  EXTERNAL,
  holdPayment,
  keysUrl,
  tool,
} from './support/agent.ts';
import { countRows, expectValidation, type StoreState, storeState } from './support/foundation.ts';
import { type Harness, startHarness, storeTargets } from './support/harness.ts';
import { call } from './support/http.ts';

/** What the outside test sent, and the rest of each refused class. */
const REFUSED: ReadonlyArray<[string, string]> = [
  ['CR', '\r'],
  ['LF', '\n'],
  ['RIGHT-TO-LEFT OVERRIDE', '\u202e'],
  ['RIGHT-TO-LEFT ISOLATE', '\u2067'],
  ['RIGHT-TO-LEFT MARK', '\u200f'],
  ['ZERO WIDTH SPACE', '\u200b'],
  ['LINE SEPARATOR', '\u2028'],
  ['TAG LATIN CAPITAL LETTER A', '\u{e0041}'],
  ['NUL', '\u0000'],
  ['NEXT LINE (C1)', '\u0085'],
];
/** Real text that uses joiners and selectors: an emoji ZWJ sequence, a heart with VS16, Persian with a ZWNJ. */
const ALLOWED = ['Dev 👩\u200d💻 team', 'Savings ❤\ufe0f', 'می\u200cخواهم', 'Épargne — 貯金', 'חיסכון'];
const HIDDEN_REASON = /must be one line of plain text.*\(it holds U\+[0-9A-F]{4,5}\)/;
const ADDRESS = '0x52908400098527886E0F7030069857D2E4169EE7';

/** Rows of the tables human text lands in, with the money tables storeState watches. */
async function snapshot(h: Harness): Promise<[StoreState, Record<string, number>]> {
  const tables = [
    'api_keys',
    'withdrawal_addresses',
    'webhook_endpoints',
    'passkeys',
    'oauth_clients',
  ] as const;
  const counts: Record<string, number> = {};
  for (const table of tables) counts[table] = await countRows(h, table);
  return [await storeState(h), counts];
}

for (const target of await storeTargets()) {
  describe(`human text refuses control and bidi characters (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    let agent: Agent;
    let pendingTx: string;
    let webhookId: string;
    before(async () => {
      h = await startHarness(target.name, 'human_text', { env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
      agent = await agentWithKey(h);
      pendingTx = await holdPayment(h, agent, '1');
      const hook = await agent.user.api.post('/api/v1/webhooks', { url: 'https://127.0.0.1:9/hook' });
      assert.equal(hook.status, 201, hook.raw);
      webhookId = hook.body.data.id;
    });
    after(() => h?.close());

    /** Every human-text field of the REST routes: how to send a value in it, and the field's name. */
    const fields: ReadonlyArray<{ field: string; send: (text: string) => ReturnType<typeof call> }> = [
      { field: 'label', send: (label) => agent.user.api.post('/api/v1/agent-wallets', { label }) },
      {
        field: 'label',
        send: (label) => agent.user.api.patch(`/api/v1/agent-wallets/${agent.walletId}`, { label }),
      },
      { field: 'label', send: (label) => agent.user.api.post(keysUrl(agent.walletId), { label }) },
      {
        field: 'label',
        send: (label) =>
          agent.user.api.post('/api/v1/wallet/withdrawal-addresses', { address: ADDRESS, label }),
      },
      {
        field: 'label',
        send: (label) =>
          agent.user.api.post('/api/v1/auth/passkeys', {
            label,
            response: { id: 'a', rawId: 'a', type: 'public-key', clientExtensionResults: {}, response: {} },
          }),
      },
      {
        field: 'memo',
        send: (memo) =>
          agent.user.api.post('/api/v1/wallet/withdrawals', { toAddress: ADDRESS, amount: '1', memo }),
      },
      {
        field: 'description',
        send: (description) =>
          agent.user.api.post('/api/v1/webhooks', { url: 'https://127.0.0.1:9/other', description }),
      },
      {
        field: 'description',
        send: (description) => agent.user.api.patch(`/api/v1/webhooks/${webhookId}`, { description }),
      },
      {
        field: 'reason',
        send: (reason) => agent.user.api.post(decisionUrl(agent.walletId, pendingTx, 'reject'), { reason }),
      },
      {
        field: 'memo',
        send: (memo) => tool(h, agent.key, 'send_payment', { toAddress: EXTERNAL, amount: '1', memo }),
      },
      {
        field: 'memo',
        send: (memo) => tool(h, agent.key, 'request_approval', { toAddress: EXTERNAL, amount: '1', memo }),
      },
      {
        field: 'reason',
        send: (reason) =>
          tool(h, agent.key, 'request_approval', { toAddress: EXTERNAL, amount: '1', reason }),
      },
    ];

    test('each refused character, in every field, is a 400 naming the field; nothing is stored', async () => {
      const before = await snapshot(h);
      for (const { field, send } of fields) {
        for (const [name, char] of REFUSED) {
          const reply = await send(`Savings${char}0xab12`);
          expectValidation(reply, field, HIDDEN_REASON);
          assert.ok(reply.body.error.message.includes(field), `${field} with ${name}: ${reply.raw}`);
        }
        // At the edge too: trimming a label must not quietly take a line break away.
        expectValidation(await send('Savings\r\n'), field, HIDDEN_REASON);
      }
      assert.deepEqual(await snapshot(h), before, 'a refused request stored something');
      const pending = await agent.user.api.get(
        `/api/v1/agent-wallets/${agent.walletId}/transactions/${pendingTx}`,
      );
      assert.equal(pending.body.data.status, 'pending', 'the refused rejection left the payment pending');
    });

    test('an MCP tools/call with a right-to-left override in its memo is a VALIDATION_ERROR and pays nothing', async () => {
      const before = await snapshot(h);
      const reply = await call(
        h.app,
        'POST',
        '/mcp',
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: {
            name: 'send_payment',
            arguments: {
              toAddress: EXTERNAL,
              amount: '1',
              memo: 'rent \u202e21ba',
              idempotencyKey: 'mcp-bidi-1',
            },
          },
        },
        {
          token: agent.key,
          headers: { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
        },
      );
      assert.equal(reply.status, 200, reply.raw);
      const result = reply.body.result;
      assert.equal(result.isError, true, reply.raw);
      assert.match(result.content[0].text, /^VALIDATION_ERROR.*memo.*U\+202E/s);
      assert.deepEqual(await snapshot(h), before);
    });

    test('labels with emoji joiners, variation selectors, Persian non-joiners and right-to-left scripts are kept', async () => {
      for (const label of ALLOWED) {
        const created = await agent.user.api.post('/api/v1/agent-wallets', { label });
        assert.equal(created.status, 201, `${JSON.stringify(label)}: ${created.raw}`);
        assert.equal(created.body.data.label, label);
        const memo = await tool(h, agent.key, 'request_approval', {
          toAddress: EXTERNAL,
          amount: '1',
          memo: label,
          reason: label,
        });
        assert.equal(memo.status, 200, memo.raw);
      }
      // Joiners alone show nothing: a label must show something.
      expectValidation(
        await agent.user.api.post('/api/v1/agent-wallets', { label: ' \u200d\u200c ' }),
        'label',
      );
    });

    test('an OAuth client cannot register a name with a bidi override (OAuth’s own error)', async () => {
      const before = await snapshot(h);
      const reply = await call(h.app, 'POST', '/oauth/register', {
        redirect_uris: ['http://127.0.0.1:7/callback'],
        client_name: 'Claude\u202e (official)',
        token_endpoint_auth_method: 'none',
      });
      assert.equal(reply.status, 400, reply.raw);
      assert.equal(reply.body.error, 'invalid_client_metadata');
      assert.match(reply.body.error_description, /client_name must be one line of plain text/);
      assert.deepEqual(await snapshot(h), before);
    });
  });
}

describe('every human-text field of the document and of every tool carries the rule', () => {
  const NAMES = /^(label|name|description|memo|reason|note|title|clientName)$/;
  const SAMPLES = ['a\rb', 'a\nb', 'a\u202eb', 'a\u200bb', 'a\u2028b'];
  let h: Harness;
  before(async () => {
    h = await startHarness('sqlite', 'human_text_doc', { env: { RAIL: 'sandbox' } });
  });
  after(() => h?.close());

  test('request bodies: each such string property has a pattern that refuses CR, LF, U+202E, U+200B, U+2028', async () => {
    const document = (await call(h.app, 'GET', '/api/v1/openapi.json')).body;
    const found: string[] = [];
    const problems: string[] = [];
    const visit = (schema: unknown, where: string): void => {
      if (typeof schema !== 'object' || schema === null) return;
      const node = schema as Record<string, unknown>;
      for (const [name, property] of Object.entries((node.properties ?? {}) as Record<string, unknown>)) {
        if (NAMES.test(name)) {
          found.push(`${where}.${name}`);
          for (const branch of stringBranches(property)) {
            const pattern = typeof branch.pattern === 'string' ? new RegExp(branch.pattern, 'u') : null;
            const passes = SAMPLES.filter((sample) => pattern === null || pattern.test(sample));
            if (passes.length > 0) problems.push(`${where}.${name} accepts ${JSON.stringify(passes)}`);
          }
        }
        visit(property, `${where}.${name}`);
      }
      for (const key of ['items', 'anyOf', 'oneOf', 'allOf'] as const) {
        const inner = node[key];
        for (const child of Array.isArray(inner) ? inner : [inner]) visit(child, where);
      }
    };
    for (const [path, operations] of Object.entries(
      document.paths as Record<string, Record<string, Operation>>,
    )) {
      for (const [method, operation] of Object.entries(operations)) {
        visit(
          operation?.requestBody?.content?.['application/json']?.schema,
          `${method.toUpperCase()} ${path}`,
        );
      }
    }
    assert.ok(found.length >= 12, `only ${found.length} fields found: ${found.join(', ')}`);
    assert.deepEqual(problems, []);
  });

  test('every tool’s memo and reason, on every rail, refuse what the routes refuse', () => {
    const checked: string[] = [];
    for (const definition of toolsFor(null)) {
      const shape = (
        definition.input as unknown as {
          shape: Record<string, { safeParse(v: unknown): { success: boolean } }>;
        }
      ).shape;
      for (const [name, field] of Object.entries(shape)) {
        if (!NAMES.test(name)) continue;
        checked.push(`${definition.name}.${name}`);
        for (const sample of [...SAMPLES, 'tag\u{e0041}']) {
          assert.equal(
            field.safeParse(sample).success,
            false,
            `${definition.name}.${name} took ${JSON.stringify(sample)}`,
          );
        }
        assert.equal(field.safeParse('rent 👩\u200d💻').success, true, `${definition.name}.${name}`);
      }
    }
    for (const expected of [
      'send_payment.memo',
      'request_approval.reason',
      'x402_fetch.memo',
      'x402_sign.memo',
      'mpp_sign.memo',
      'paid_fetch.memo',
    ]) {
      assert.ok(checked.includes(expected), `${expected} was not checked (${checked.join(', ')})`);
    }
  });
});

interface Operation {
  requestBody?: { content?: Record<string, { schema?: unknown }> };
}

/** The branches of a property that take a string (itself, or an anyOf's string branches). */
function stringBranches(schema: unknown): Array<Record<string, unknown>> {
  if (typeof schema !== 'object' || schema === null) return [];
  const node = schema as Record<string, unknown>;
  if (Array.isArray(node.anyOf)) return node.anyOf.flatMap(stringBranches);
  return node.type === 'string' ? [node] : [];
}
