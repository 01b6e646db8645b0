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

/** Keys remembered at most by sharedRecentReads: past this, the oldest is forgotten. */
const MAX_REMEMBERED = 1_000;

/**
 * sharedInFlight, and a read that finished less than `reuseMs` ago is that read again (per key,
 * at most MAX_REMEMBERED keys; a failed read is never kept). `reuseMs` of 0 (or not a number) is
 * sharedInFlight alone: nothing is kept.
 */
export function sharedRecentReads<V>(read: (key: string) => Promise<V>, reuseMs: number, now: () => number = Date.now): (key: string) => Promise<V> {
  const inFlight = sharedInFlight(read);
  if (!(reuseMs > 0)) return inFlight;
  const finished = new Map<string, { at: number; value: V }>();
  return async (key) => {
    const kept = finished.get(key);
    if (kept && now() - kept.at < reuseMs) return kept.value;
    const value = await inFlight(key);
    finished.delete(key);
    if (finished.size >= MAX_REMEMBERED) finished.delete(finished.keys().next().value as string);
    finished.set(key, { at: now(), value });
    return value;
  };
}
