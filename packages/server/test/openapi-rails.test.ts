// The every-rail OpenAPI document (src/app/openapi-rails.ts: what the SDK's wire types are generated from) is
// the sandbox server's served document with the evm server's own operations added, marked and otherwise as an evm
// server documents them — while the document a sandbox server serves stays free of them.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { EVM_ONLY_NOTE, everyRailDocument } from '../src/app/openapi-rails.ts';
import { EVM_ONLY_ROUTES, OPERATION_IDS } from '../src/routes/index.ts';
import { anvilAvailable } from './support/anvil.ts';
import { type EvmWorld, evmEnv, startEvmWorld } from './support/evm.ts';
import { type Harness, startHarness } from './support/harness.ts';
import { call } from './support/http.ts';

// biome-ignore lint/suspicious/noExplicitAny: the document is JSON
type Json = any;

const EVM_ONLY_IDS = [...EVM_ONLY_ROUTES].map((route) => OPERATION_IDS.get(route) as string);

/** Every operation of a document by operationId, with its path and method. */
function operations(document: Json): Map<string, { path: string; method: string; operation: Json }> {
  const found = new Map();
  for (const [path, item] of Object.entries<Json>(document.paths))
    for (const [method, operation] of Object.entries<Json>(item))
      found.set(operation.operationId, { path, method, operation });
  return found;
}

/** An operation of the every-rail document as the server of its rail serves it: the marks taken off. */
function unmarked(operation: Json): Json {
  const { 'x-rail': _, ...rest } = operation;
  const description = rest.description?.startsWith(`${EVM_ONLY_NOTE} `)
    ? rest.description.slice(EVM_ONLY_NOTE.length + 1)
    : rest.description;
  return { ...rest, ...(description === undefined ? {} : { description }) };
}

describe('the every-rail OpenAPI document (sandbox server)', () => {
  let h: Harness;
  let served: Json;
  let every: Json;
  before(async () => {
    h = await startHarness('sqlite', 'openapi-rails');
    served = (await call(h.app, 'GET', '/api/v1/openapi.json')).body;
    every = await everyRailDocument(served, h.services);
  });
  after(() => h?.close());

  test('the served document names no evm-only operation and no rail mark', () => {
    const ids = [...operations(served).keys()];
    for (const id of EVM_ONLY_IDS) assert.ok(!ids.includes(id), `${id} is not served by a sandbox server`);
    assert.doesNotMatch(JSON.stringify(served), /x-rail/);
  });

  test('it adds each evm-only operation, marked, and keeps every served one (the sandbox’s marked)', () => {
    const all = operations(every);
    for (const id of EVM_ONLY_IDS) {
      const operation = all.get(id)?.operation;
      assert.equal(operation?.['x-rail'], 'evm', `${id} is marked evm`);
      assert.match(operation.description, /`?evm`? rail only/i, `${id} says it in its description`);
    }
    for (const [id, { path, method, operation }] of operations(served)) {
      const kept = every.paths[path][method];
      assert.deepEqual(unmarked(kept), operation, `${id} is as served`);
      assert.equal(kept['x-rail'], id === 'sandboxDeposit' ? 'sandbox' : undefined, `${id}'s mark`);
    }
    assert.equal(all.size, operations(served).size + EVM_ONLY_IDS.length);
    assert.equal(every.paths === served.paths, false, 'the served document itself is left as it was');
  });
});

const probe = await anvilAvailable();

describe('the every-rail document against an evm server', {
  skip: probe.available ? false : probe.skip,
}, () => {
  let world: EvmWorld;
  let sandbox: Harness;
  let evm: Harness;
  before(async () => {
    world = await startEvmWorld();
    sandbox = await startHarness('sqlite', 'openapi-rails-sandbox');
    evm = await startHarness('sqlite', 'openapi-rails-evm', { env: evmEnv(world) });
  });
  after(async () => {
    await sandbox?.close();
    await evm?.close();
    await world?.anvil.stop();
  });

  test('its evm-only operations, marks taken off, are exactly what an evm server serves', async () => {
    const served = (await call(sandbox.app, 'GET', '/api/v1/openapi.json')).body;
    const every = operations(await everyRailDocument(served, sandbox.services));
    const onEvm = operations((await call(evm.app, 'GET', '/api/v1/openapi.json')).body);
    for (const id of EVM_ONLY_IDS) {
      const served = onEvm.get(id);
      assert.ok(served !== undefined, `an evm server serves ${id}`);
      const documented = every.get(id);
      assert.equal(documented?.path, served.path);
      assert.equal(documented?.method, served.method);
      assert.deepEqual(unmarked(documented?.operation), served.operation, `${id} is as an evm server has it`);
    }
  });
});
