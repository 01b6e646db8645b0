/**
 * A function's composition (its clients, stores and use case) runs once, when its module is loaded:
 * the Lambda cold start, as Powertools' examples build their clients at module scope. Reading a
 * setting can fail there (a variable the function's template lacks: a deployment mistake); the
 * module still loads, and every invocation meets the failure instead: an API function logs it and
 * answers the generic 500 in the contract's shape (lib/http/api-handler.ts), a worker's invocation
 * fails, so its messages go back to the queue.
 */
export function atColdStart<T>(compose: () => T): () => T {
  let composed: { value: T } | { error: unknown };
  try {
    composed = { value: compose() };
  } catch (error) {
    composed = { error };
  }
  return () => {
    if ('error' in composed) throw composed.error;
    return composed.value;
  };
}
