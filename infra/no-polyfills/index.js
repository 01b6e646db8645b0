// Intentionally empty: the polyfills core-js 2 would install are built into Node 22, the runtime
// the functions run on (test/infra/no-polyfills.test.ts checks they change nothing there).
