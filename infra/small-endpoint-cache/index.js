// @aws-sdk/endpoint-cache's EndpointCache, method for method, on a Map kept in order of use
// instead of mnemonist's LRU cache (which, with obliterator, is 7.5 kB of every bundle with a
// DynamoDB client). The DynamoDB client builds one at start for endpoint discovery, which none of
// its commands uses today; should one ever use it, this cache behaves as the SDK's does
// (test/infra/small-endpoint-cache.test.ts runs both through the same random operations).
export class EndpointCache {
  #capacity;
  #entries = new Map();

  constructor(capacity) {
    this.#capacity = capacity;
  }

  getEndpoint(key) {
    const endpointsWithExpiry = this.get(key);
    if (!endpointsWithExpiry || endpointsWithExpiry.length === 0) return undefined;
    const endpoints = endpointsWithExpiry.map((endpoint) => endpoint.Address);
    return endpoints[Math.floor(Math.random() * endpoints.length)];
  }

  get(key) {
    if (!this.has(key)) return undefined;
    // Reading a key makes it the most recently used, as the LRU cache's get does.
    const value = this.#entries.get(key);
    this.#store(key, value);
    const now = Date.now();
    const endpointsWithExpiry = value.filter((endpoint) => now < endpoint.Expires);
    if (endpointsWithExpiry.length === 0) {
      this.delete(key);
      return undefined;
    }
    return endpointsWithExpiry;
  }

  set(key, endpoints) {
    const now = Date.now();
    this.#store(
      key,
      endpoints.map(({ Address, CachePeriodInMinutes }) => ({ Address, Expires: now + CachePeriodInMinutes * 60 * 1000 })),
    );
  }

  delete(key) {
    this.#store(key, []);
  }

  // Looks without making the key recently used (the LRU cache's has and peek).
  has(key) {
    const endpoints = this.#entries.get(key);
    return endpoints !== undefined && endpoints.length > 0;
  }

  clear() {
    this.#entries.clear();
  }

  /** Most recently used last; past the capacity, the least recently used goes. */
  #store(key, value) {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    if (this.#entries.size > this.#capacity) this.#entries.delete(this.#entries.keys().next().value);
  }
}
