/**
 * A port a function's composition leaves out on purpose (its bundle and environment then hold
 * nothing for it): any use of it throws, naming the part, instead of failing somewhere deeper.
 */
export function notWired<T extends object>(part: string): T {
  return new Proxy({} as T, {
    get: () => {
      throw new Error(`${part} is not wired in this function`);
    },
  });
}
