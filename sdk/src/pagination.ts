/**
 * A cursor-paginated list: `await` it for the first page, or `for await` it for every item across
 * every page (fetched one page at a time, as the loop asks), as stripe-node's lists do.
 */
export class PagedList<Page, Item> implements AsyncIterable<Item>, PromiseLike<Page> {
  constructor(
    private readonly fetchPage: (cursor: string | undefined) => Promise<Page>,
    private readonly itemsOf: (page: Page) => Item[],
    private readonly nextCursorOf: (page: Page) => string | null | undefined,
    private readonly firstCursor: string | undefined = undefined,
  ) {}

  /** The first page (what `await` gives). */
  then<A = Page, B = never>(onFulfilled?: ((page: Page) => A | PromiseLike<A>) | null, onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<A | B> {
    return this.fetchPage(this.firstCursor).then(onFulfilled, onRejected);
  }

  /** Every page in turn, the last one being the one whose next cursor is null. */
  async *pages(): AsyncGenerator<Page, void, undefined> {
    const seen = new Set<string>();
    let cursor = this.firstCursor;
    for (;;) {
      const page = await this.fetchPage(cursor);
      yield page;
      const next = this.nextCursorOf(page);
      if (next === null || next === undefined) return;
      // A cursor met twice would loop for ever; the API never sends one, but a proxy's cache might.
      if (seen.has(next)) throw new Error(`The API sent the cursor ${next} twice; stopping the iteration.`);
      seen.add(next);
      cursor = next;
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Item, void, undefined> {
    for await (const page of this.pages()) yield* this.itemsOf(page);
  }

  /** Every item, at most `limit` of them, in one array. */
  async toArray(options: { limit: number }): Promise<Item[]> {
    const items: Item[] = [];
    if (options.limit <= 0) return items;
    for await (const item of this) {
      items.push(item);
      if (items.length >= options.limit) break;
    }
    return items;
  }
}
