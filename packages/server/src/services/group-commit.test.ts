import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createGroupCommit } from './group-commit.ts';

interface Commit {
  items: readonly number[];
  finish: () => void;
  fail: (error: Error) => void;
}

/** A commit the test answers by hand (each item's answer is twice the item), so what is in flight is known. */
function manualCommit() {
  const commits: Commit[] = [];
  const commitGroup = (items: readonly number[]) =>
    new Promise<number[]>((resolve, reject) => {
      commits.push({ items, finish: () => resolve(items.map((i) => i * 2)), fail: reject });
    });
  return { commits, commitGroup };
}

const turn = () => new Promise((done) => setImmediate(done));
const unreachable = new Error('connection refused');
const options = (maxItems: number, maxWaiting = 100) => ({
  maxItems,
  maxWaiting,
  isUnreachable: (error: unknown) => error === unreachable,
});

describe('group commit', () => {
  test('items of one turn go in one commit; those arriving meanwhile wait for it and go together next', async () => {
    const { commits, commitGroup } = manualCommit();
    const commit = createGroupCommit(commitGroup, options(10));
    const first = Promise.all([1, 2, 3].map(commit));
    await turn();
    assert.deepEqual(
      commits.map((c) => c.items),
      [[1, 2, 3]],
    );
    const second = Promise.all([4, 5].map(commit));
    await turn();
    assert.equal(commits.length, 1, 'one group in flight at a time');
    commits[0]!.finish();
    assert.deepEqual(await first, [2, 4, 6]);
    await turn();
    assert.deepEqual(commits[1]!.items, [4, 5]);
    commits[1]!.finish();
    assert.deepEqual(await second, [8, 10]);
  });

  test('a group holds at most maxItems; the rest goes in the next', async () => {
    const { commits, commitGroup } = manualCommit();
    const commit = createGroupCommit(commitGroup, options(2));
    const all = Promise.all([1, 2, 3].map(commit));
    await turn();
    assert.deepEqual(commits[0]!.items, [1, 2]);
    commits[0]!.finish();
    await turn();
    await turn();
    assert.deepEqual(commits[1]!.items, [3]);
    commits[1]!.finish();
    assert.deepEqual(await all, [2, 4, 6]);
  });

  test('a group that fails is committed again item by item, so only the bad item fails', async () => {
    const bad = new Error('refused by a constraint');
    const calls: number[][] = [];
    const commit = createGroupCommit(async (items: readonly number[]) => {
      calls.push([...items]);
      if (items.includes(2)) throw bad;
      return items.map((i) => i * 2);
    }, options(10));
    const answers = await Promise.allSettled([1, 2, 3].map(commit));
    assert.deepEqual(calls, [[1, 2, 3], [1], [2], [3]]);
    assert.deepEqual(answers, [
      { status: 'fulfilled', value: 2 },
      { status: 'rejected', reason: bad },
      { status: 'fulfilled', value: 6 },
    ]);
  });

  test('an unreachable database fails the group and everything waiting at once, never retried', async () => {
    const { commits, commitGroup } = manualCommit();
    const commit = createGroupCommit(commitGroup, options(1));
    const answers = Promise.allSettled([1, 2, 3].map(commit));
    await turn();
    commits[0]!.fail(unreachable);
    const settled = await answers;
    assert.deepEqual(
      settled.map((s) => s.status),
      ['rejected', 'rejected', 'rejected'],
    );
    assert.equal(commits.length, 1, 'nothing else was attempted');
    // The next item starts a group of its own.
    const next = commit(4);
    await turn();
    commits[1]!.finish();
    assert.equal(await next, 8);
  });

  test('past maxWaiting an item is refused at once with a 503, nothing queued for it', async () => {
    const { commits, commitGroup } = manualCommit();
    const commit = createGroupCommit(commitGroup, options(1, 2));
    const waiting = [commit(1), commit(2)];
    await assert.rejects(commit(3), (error: { code?: string }) => error.code === 'SERVICE_UNAVAILABLE');
    await turn();
    commits[0]!.finish();
    await turn();
    await turn();
    commits[1]!.finish();
    assert.deepEqual(await Promise.all(waiting), [2, 4]);
    assert.deepEqual(
      commits.map((c) => c.items),
      [[1], [2]],
    );
  });
});
