import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createReadBatch } from './read-batch.ts';

interface Load {
  keys: readonly string[];
  finish: (rows?: ReadonlyMap<string, string>) => void;
  fail: (error: Error) => void;
}

/** A load whose queries the test answers by hand, so what is on the wire at each moment is known. */
function manualLoad() {
  const loads: Load[] = [];
  const load = (keys: readonly string[]) =>
    new Promise<ReadonlyMap<string, string>>((resolve, reject) => {
      loads.push({
        keys,
        finish: (rows) => resolve(rows ?? new Map(keys.map((k) => [k, `value of ${k}`]))),
        fail: reject,
      });
    });
  return { loads, load };
}

const turn = () => new Promise((done) => setImmediate(done));
const unreachable = new Error('connection refused');
const options = (maxKeys: number, maxInFlight: number, maxWaiting = 100) => ({
  maxKeys,
  maxInFlight,
  maxWaiting,
  isUnreachable: (error: unknown) => error === unreachable,
});

describe('read batch', () => {
  test('reads asked in one turn go in one query, each answered with its own row', async () => {
    const { loads, load } = manualLoad();
    const read = createReadBatch(load, options(10, 2));
    const answers = Promise.all(['a', 'b', 'a', 'c'].map((k) => read(k)));
    await turn();
    assert.equal(loads.length, 1);
    assert.deepEqual(loads[0]!.keys, ['a', 'b', 'c']);
    loads[0]!.finish(
      new Map([
        ['a', 'A'],
        ['c', 'C'],
      ]),
    );
    assert.deepEqual(await answers, ['A', undefined, 'A', 'C']);
  });

  test('a read never joins a query already sent: it sees what was committed before it was asked', async () => {
    const { loads, load } = manualLoad();
    const read = createReadBatch(load, options(10, 1));
    const first = read('a');
    await turn();
    const second = read('a');
    await turn();
    assert.equal(loads.length, 1, 'the second read waits for a query of its own');
    loads[0]!.finish(new Map([['a', 'old']]));
    assert.equal(await first, 'old');
    await turn();
    await turn();
    assert.equal(loads.length, 2);
    loads[1]!.finish(new Map([['a', 'new']]));
    assert.equal(await second, 'new');
  });

  test('at most maxKeys per query and maxInFlight queries at once; the rest go when one returns', async () => {
    const { loads, load } = manualLoad();
    const read = createReadBatch(load, options(3, 2));
    const keys = Array.from({ length: 10 }, (_, i) => `k${i}`);
    const answers = Promise.all(keys.map((k) => read(k)));
    await turn();
    assert.deepEqual(
      loads.map((l) => l.keys),
      [
        ['k0', 'k1', 'k2'],
        ['k3', 'k4', 'k5'],
      ],
    );
    loads[0]!.finish();
    await turn();
    await turn();
    assert.equal(loads.length, 3, 'one query returned, one more goes');
    assert.deepEqual(loads[2]!.keys, ['k6', 'k7', 'k8']);
    for (let i = 1; i < 5; i += 1) {
      loads[i]?.finish();
      await turn();
      await turn();
    }
    assert.equal(loads.length, 4);
    assert.deepEqual(
      await answers,
      keys.map((k) => `value of ${k}`),
    );
  });

  test('a failed query fails each of its reads, and the next reads go on', async () => {
    const { loads, load } = manualLoad();
    const read = createReadBatch(load, options(10, 1));
    const failed = Promise.allSettled([read('a'), read('b')]);
    await turn();
    loads[0]!.fail(new Error('database unavailable'));
    const results = await failed;
    assert.deepEqual(
      results.map((r) => (r.status === 'rejected' ? (r.reason as Error).message : r.status)),
      ['database unavailable', 'database unavailable'],
    );
    const later = read('c');
    await turn();
    loads[1]!.finish();
    assert.equal(await later, 'value of c');
  });

  test('past maxWaiting a read is refused at once with a 503, and the ones waiting are still answered', async () => {
    const { loads, load } = manualLoad();
    const read = createReadBatch(load, options(2, 1, 4));
    const first = read('a'); // on the wire after this turn
    await turn();
    const waiting = ['b', 'c', 'd', 'e'].map((k) => read(k));
    await assert.rejects(read('f'), (error: { code?: string }) => error.code === 'SERVICE_UNAVAILABLE');
    loads[0]!.finish();
    assert.equal(await first, 'value of a');
    for (let i = 1; i <= 2; i += 1) {
      await turn();
      await turn();
      loads[i]!.finish();
    }
    assert.deepEqual(await Promise.all(waiting), ['value of b', 'value of c', 'value of d', 'value of e']);
  });

  test('a database that is unreachable fails every waiting read at once, not one timeout after another', async () => {
    const { loads, load } = manualLoad();
    const read = createReadBatch(load, options(2, 1));
    const reads = ['a', 'b', 'c', 'd', 'e'].map((k) => read(k).catch((error: unknown) => error));
    await turn();
    assert.equal(loads.length, 1);
    loads[0]!.fail(unreachable);
    assert.deepEqual(await Promise.all(reads), [
      unreachable,
      unreachable,
      unreachable,
      unreachable,
      unreachable,
    ]);
    assert.equal(loads.length, 1, 'no further query was sent for them');
  });

  test('refuses a batch that could never send a query', () => {
    assert.throws(() => createReadBatch(manualLoad().load, options(0, 1)));
    assert.throws(() => createReadBatch(manualLoad().load, options(1, 0)));
    assert.throws(() => createReadBatch(manualLoad().load, options(4, 1, 2)));
  });
});
