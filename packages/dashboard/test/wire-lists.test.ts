// The dashboard's lists of wire values (src/api/wire.ts, the member roles of src/roles.ts, the SDK's calendar
// periods, the merchant host pattern of src/views/merchantHost.ts) against the OpenAPI document the server
// publishes — built, as the SDK's generator builds it, from the zod schemas that validate each route. A value
// the server adds or drops fails here (and in the dashboard's typecheck, through the SDK's generated types): the
// lists are in the dashboard's order, compared as sets.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { CALENDAR_PERIODS } from '../../sdk/src/calendar-period.ts';
import { openapiDocument } from '../../server/scripts/openapi-document.ts';
import { DAYS, POLICY_TYPES, TX_STATUSES, WEBHOOK_EVENT_TYPES, WINDOWS } from '../src/api/wire.ts';
import { ROLES } from '../src/roles.ts';
import { HOST_LENGTH_MAX, HOST_PATTERN } from '../src/views/merchantHost.ts';

type Schema = { [key: string]: unknown };

const isObject = (value: unknown): value is Schema => typeof value === 'object' && value !== null;

/** The schema of the `data` of an operation's 200 answer, found by its operationId. */
function answerData(document: Schema, operationId: string): Schema {
  for (const methods of Object.values(document.paths as Schema)) {
    for (const operation of Object.values(methods as Schema)) {
      if (!isObject(operation) || operation.operationId !== operationId) continue;
      const schema = at(operation, 'responses', '200', 'content', 'application/json', 'schema');
      return at(schema, 'properties', 'data');
    }
  }
  throw new Error(`no operation ${operationId} in the document`);
}

function at(schema: unknown, ...keys: string[]): Schema {
  let here = schema;
  for (const key of keys) {
    assert.ok(isObject(here) && key in here, `no ${keys.join('.')} in the schema`);
    here = here[key];
  }
  assert.ok(isObject(here));
  return here;
}

/** The one enumeration under a schema (the same list wherever it repeats, e.g. in each branch of an anyOf). */
function enumIn(schema: Schema): string[] {
  const found = new Set<string>();
  const walk = (node: unknown) => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (!isObject(node)) return;
    if (Array.isArray(node.enum)) found.add(JSON.stringify(node.enum));
    for (const value of Object.values(node)) walk(value);
  };
  walk(schema);
  assert.equal(found.size, 1, `one enumeration under the schema, found ${[...found].join(' and ')}`);
  return JSON.parse([...found][0]!);
}

const sorted = (values: readonly string[]) => [...values].sort();

describe('the dashboard’s wire lists are the OpenAPI document’s', () => {
  let document: Schema;
  let policyVariants: Schema[];
  const paramsOf = (type: string) => {
    const variant = policyVariants.find((v) => enumIn(at(v, 'properties', 'type'))[0] === type);
    assert.ok(variant !== undefined, `no ${type} policy in the document`);
    return at(variant, 'properties', 'params', 'properties');
  };

  before(async () => {
    document = await openapiDocument();
    const items = at(answerData(document, 'listPolicies'), 'properties', 'items', 'items');
    policyVariants = (items.oneOf ?? items.anyOf) as Schema[];
    assert.ok(Array.isArray(policyVariants), 'a policy is one of its types');
  });

  test('transaction statuses', () => {
    const transaction = at(answerData(document, 'listTransactions'), 'properties', 'transactions', 'items');
    assert.deepEqual(sorted(TX_STATUSES), sorted(enumIn(at(transaction, 'properties', 'status'))));
  });

  test('policy types', () => {
    const types = policyVariants.flatMap((variant) => enumIn(at(variant, 'properties', 'type')));
    assert.deepEqual(sorted(POLICY_TYPES), sorted(types));
  });

  test('rolling windows, weekdays and calendar periods of the policies that name them', () => {
    assert.deepEqual(sorted(WINDOWS), sorted(enumIn(paramsOf('spend_cap_window').window as Schema)));
    assert.deepEqual(sorted(DAYS), sorted(enumIn(paramsOf('time_window').days as Schema)));
    assert.deepEqual(sorted(CALENDAR_PERIODS), sorted(enumIn(paramsOf('spend_cap_period').period as Schema)));
  });

  test('webhook event types', () => {
    const endpoint = at(answerData(document, 'listWebhooks'), 'properties', 'items', 'items');
    assert.deepEqual(sorted(WEBHOOK_EVENT_TYPES), sorted(enumIn(at(endpoint, 'properties', 'events'))));
  });

  test('member roles', () => {
    const member = at(answerData(document, 'listMembers'), 'properties', 'items', 'items');
    assert.deepEqual(sorted(ROLES), sorted(enumIn(at(member, 'properties', 'role'))));
  });

  test("a merchant list's host: the editor checks the pattern and length the document publishes", () => {
    const hosts = schemasWithPattern(document).filter((schema) => schema.pattern === HOST_PATTERN.source);
    assert.ok(hosts.length > 0, `no schema in the document has the pattern ${HOST_PATTERN.source}`);
    for (const schema of hosts) assert.equal(schema.maxLength, HOST_LENGTH_MAX);
  });
});

/** Every schema of the document that has a `pattern`. */
function schemasWithPattern(node: unknown, found: Schema[] = []): Schema[] {
  if (Array.isArray(node)) for (const item of node) schemasWithPattern(item, found);
  else if (isObject(node)) {
    if (typeof node.pattern === 'string') found.push(node);
    for (const value of Object.values(node)) schemasWithPattern(value, found);
  }
  return found;
}
