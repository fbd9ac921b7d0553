// Every item of a paginated list, a page at a time: `for await (const tx of paginate((page) => ...))`. Stops
// at the last page (by `total`), at an empty page, and after PAGES_MAX pages whatever the server says.
//
// Each list method returns a PagePromise: awaited, it is the first page (as it always was); iterated with
// `for await`, it is every item of every page from there on, as in stripe-node and openai-node:
//   const page = await mgmt.transactions.list(walletId);            // one page
//   for await (const tx of mgmt.transactions.list(walletId)) ...     // every transaction
// A list read by key (its page names the next one by `nextCursor`) returns a CursorPagePromise: the same, but
// iteration follows the cursors, so rows written while it runs neither repeat nor push others out of its view.

/**
 * A page of a list: `items` (or `transactions` for transaction lists), the `total` across all pages and, as every
 * list of the service answers, its `page` number and `limit` (page size).
 */
export type PageOf<T> = { total: number; items?: T[]; transactions?: T[]; page?: number; limit?: number };

/** The item type of a page: what `for await` over its list yields. */
export type ItemOf<P> = P extends { transactions: Array<infer T> }
  ? T
  : P extends { items: Array<infer T> }
    ? T
    : never;

const PAGES_MAX = 100_000;

export async function* paginate<T>(fetchPage: (page: number) => Promise<PageOf<T>>): AsyncGenerator<T> {
  yield* itemsFrom(1, fetchPage(1), fetchPage);
}

/** Every item of page `startPage` (already requested: `first`) and of the pages after it. */
async function* itemsFrom<T>(
  startPage: number,
  first: Promise<PageOf<T>>,
  fetchPage: (page: number) => Promise<PageOf<T>>,
): AsyncGenerator<T> {
  let seen = 0;
  let next = first;
  for (let page = startPage; page < startPage + PAGES_MAX; page++) {
    const result = await next;
    const items = result.items ?? result.transactions ?? [];
    for (const item of items) yield item;
    seen += items.length;
    if (items.length === 0) return;
    // Past the last page by the server's own numbers; a fetcher without them is counted from page 1.
    const covered =
      typeof result.limit === 'number'
        ? (result.page ?? page) * result.limit
        : seen + (startPage - 1) * items.length;
    if (covered >= result.total) return;
    next = fetchPage(page + 1);
  }
}

/**
 * The first page of a list (a Promise of it: `await`, `.then`, `.catch`, `.finally` as before) that is also an
 * async iterable over every item of that page and the pages after it. The first page is requested at once and
 * only once; iterating fetches the following pages, with the same filters and page size, one at a time.
 */
export class PagePromise<P extends PageOf<ItemOf<P>>> implements Promise<P>, AsyncIterable<ItemOf<P>> {
  readonly #first: Promise<P>;
  readonly #startPage: number;
  readonly #fetchPage: (page: number) => Promise<P>;

  /** `fetchPage(n)` requests page n with the list's filters; `startPage` is the page the list was asked for. */
  constructor(fetchPage: (page: number) => Promise<P>, startPage = 1) {
    this.#fetchPage = fetchPage;
    this.#startPage = startPage;
    this.#first = fetchPage(startPage);
  }

  get [Symbol.toStringTag](): string {
    return 'PagePromise';
  }

  // biome-ignore lint/suspicious/noThenProperty: a PagePromise is a Promise of its first page, on purpose
  then<A = P, B = never>(
    onFulfilled?: ((page: P) => A | PromiseLike<A>) | null,
    onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    return this.#first.then(onFulfilled, onRejected);
  }

  catch<B = never>(onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<P | B> {
    return this.#first.catch(onRejected);
  }

  finally(onFinally?: (() => void) | null): Promise<P> {
    return this.#first.finally(onFinally);
  }

  [Symbol.asyncIterator](): AsyncIterator<ItemOf<P>> {
    return itemsFrom<ItemOf<P>>(
      this.#startPage,
      this.#first as Promise<PageOf<ItemOf<P>>>,
      this.#fetchPage as (page: number) => Promise<PageOf<ItemOf<P>>>,
    );
  }
}

/** A page of a list read by key: `nextCursor` names the page after it, null on the last one. */
export type CursorPageOf<T> = PageOf<T> & { nextCursor: string | null };

/**
 * A PagePromise over a list read by key: awaited, the first page; iterated, every item of that page and of each
 * page its `nextCursor` names, until a page answers null (or is empty). Page numbers are not used: a page by
 * number shifts when a row is added at the top, a page after a cursor does not.
 */
export class CursorPagePromise<P extends CursorPageOf<ItemOf<P>>> extends PagePromise<P> {
  readonly #fetchAfter: (cursor: string) => Promise<P>;

  /** `fetchFirst()` requests the list as asked; `fetchAfter(cursor)` the page after that cursor, same filters. */
  constructor(fetchFirst: () => Promise<P>, fetchAfter: (cursor: string) => Promise<P>) {
    super(() => fetchFirst());
    this.#fetchAfter = fetchAfter;
  }

  override [Symbol.asyncIterator](): AsyncIterator<ItemOf<P>> {
    return itemsByCursor<P>(this.then(), this.#fetchAfter);
  }
}

async function* itemsByCursor<P extends CursorPageOf<ItemOf<P>>>(
  first: Promise<P>,
  fetchAfter: (cursor: string) => Promise<P>,
): AsyncGenerator<ItemOf<P>> {
  let next = first;
  for (let page = 0; page < PAGES_MAX; page++) {
    const result = await next;
    const items = (result.items ?? result.transactions ?? []) as ItemOf<P>[];
    for (const item of items) yield item;
    if (items.length === 0 || result.nextCursor === null) return;
    next = fetchAfter(result.nextCursor);
  }
}
