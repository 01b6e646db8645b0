/** Strict like every endpoint: a misspelt query parameter is refused (400 invalid_query) rather than ignored. */
import { ApiError } from './errors.js';

/** Throws invalid_query naming the first parameter not in `allowed`; `hint` says what the endpoint takes. */
export function checkQueryParameters(query: Record<string, string>, allowed: readonly string[], hint: string): void {
  const unknown = Object.keys(query).find((name) => !allowed.includes(name));
  if (unknown !== undefined) {
    throw new ApiError('invalid_query', `Unknown query parameter \`${unknown}\`. ${hint}`, { param: unknown });
  }
}
