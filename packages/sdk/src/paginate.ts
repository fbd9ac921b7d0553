// Every item of a paginated list, a page at a time: `for await (const tx of paginate((page) => ...))`. Stops
// at the last page (by `total`), at an empty page, and after PAGES_MAX pages whatever the server says.

type PageOf<T> = { total: number; items?: T[]; transactions?: T[] };

const PAGES_MAX = 100_000;

export async function* paginate<T>(fetchPage: (page: number) => Promise<PageOf<T>>): AsyncGenerator<T> {
  let seen = 0;
  for (let page = 1; page <= PAGES_MAX; page++) {
    const result = await fetchPage(page);
    const items = result.items ?? result.transactions ?? [];
    for (const item of items) yield item;
    seen += items.length;
    if (items.length === 0 || seen >= result.total) return;
  }
}
