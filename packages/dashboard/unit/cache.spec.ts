import { describe, expect, it, vi } from 'vitest';
import { ApiError } from '../src/api/errors.ts';
import { Cache } from '../src/cache.ts';

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('Cache', () => {
  it('shares one request between views that ask at the same time', async () => {
    const cache = new Cache();
    const fetcher = vi.fn(async () => 'data');
    await Promise.all([cache.ensure('k', fetcher, 1000), cache.ensure('k', fetcher, 1000)]);
    expect(fetcher).toHaveBeenCalledTimes(1);
    expect(cache.peek('k').data).toBe('data');
  });

  it('reuses a fresh answer and reloads a stale one', async () => {
    let now = 10_000;
    const cache = new Cache(() => now);
    const fetcher = vi.fn(async () => now);
    await cache.ensure('k', fetcher, 1000);
    now = 10_500;
    await cache.ensure('k', fetcher, 1000);
    expect(fetcher).toHaveBeenCalledTimes(1);
    now = 11_500;
    await cache.ensure('k', fetcher, 1000);
    expect(fetcher).toHaveBeenCalledTimes(2);
    expect(cache.peek('k').data).toBe(11_500);
  });

  it('keeps errors in the entry instead of throwing, and does not retry in a loop', async () => {
    const cache = new Cache();
    const fetcher = vi.fn(async () => {
      throw new ApiError('INTERNAL_ERROR', 500, 'boom');
    });
    await cache.ensure('k', fetcher, 1000);
    await cache.ensure('k', fetcher, 1000);
    expect(fetcher).toHaveBeenCalledTimes(1);
    expect(cache.peek('k').error?.code).toBe('INTERNAL_ERROR');
  });

  it('writes mutation answers without requests and only into loaded entries', async () => {
    const cache = new Cache();
    await cache.load('list', async () => [1, 2]);
    cache.update<number[]>('list', (items) => [0, ...items]);
    cache.update<number[]>('missing', (items) => [0, ...items]);
    expect(cache.peek('list').data).toEqual([0, 1, 2]);
    expect(cache.peek('missing').data).toBeUndefined();
  });

  it('invalidate reloads only what a view shows; the rest waits until needed', async () => {
    const cache = new Cache();
    const shown = vi.fn(async () => 'shown');
    const hidden = vi.fn(async () => 'hidden');
    await cache.load('txs:w1:1', shown);
    await cache.load('txs:w1:2', hidden);
    cache.register('txs:w1:1', shown);
    cache.register('txs:w1:2', hidden);
    const stop = cache.subscribe('txs:w1:1', () => {});
    cache.invalidate('txs:w1:');
    await Promise.resolve();
    expect(shown).toHaveBeenCalledTimes(2);
    expect(hidden).toHaveBeenCalledTimes(1);
    expect(cache.peek('txs:w1:2').fetchedAt).toBe(0);
    stop();
  });

  it('drops answers that arrive after clear() (logout)', async () => {
    const cache = new Cache();
    const slow = deferred<string>();
    const loading = cache.load('wallet', () => slow.promise);
    cache.clear();
    slow.resolve('old user data');
    await loading;
    expect(cache.peek('wallet').data).toBeUndefined();
  });
});
