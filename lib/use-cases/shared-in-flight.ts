/**
 * Reads of one key that overlap share one request: a read asked while another of the same key is
 * under way waits for that one instead of sending its own. Nothing is cached: a read asked after
 * the last one finished asks again, so a result is never older than one round trip that began
 * before it was asked. A failed read fails every read that shared it, and is not kept.
 */
export function sharedInFlight<V>(read: (key: string) => Promise<V>): (key: string) => Promise<V> {
  const inFlight = new Map<string, Promise<V>>();
  return (key) => {
    const pending = inFlight.get(key);
    if (pending) return pending;
    const started = read(key).finally(() => inFlight.delete(key));
    inFlight.set(key, started);
    return started;
  };
}
