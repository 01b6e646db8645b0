/**
 * The function bundles resolve core-js to an empty module (infra/constructs/bundling.ts,
 * BUNDLE_ALIASES): twitter-text's build imports core-js 2 polyfills one by one, and this checks
 * that on this Node they would change no standard built-in, so leaving them out changes nothing
 * twitter-text computes. The modules checked are the very ones esbuild would put in the bundle.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { BUNDLE_ALIASES, esbuildOptions } from '../../infra/constructs/bundling.js';
import { REPO_ROOT } from '../../infra/constructs/service-function.js';

const run = promisify(execFile);

/**
 * Loads the given CommonJS files in a fresh Node process and prints, as JSON, every own property
 * of the standard built-ins (and their prototypes) that they added, removed or replaced.
 */
const CHANGES_SCRIPT = `
const roots = { Object, Array, String, RegExp, Symbol, Date, Function, Number, Boolean, Promise, Map, Set, WeakMap, WeakSet,
  Reflect, Math, JSON, Error, TypeError, ArrayBuffer, DataView, Uint8Array, globalThis };
function snapshot() {
  const seen = new Map();
  for (const [name, root] of Object.entries(roots)) {
    for (const [label, target] of [[name, root], [name + '.prototype', root.prototype]]) {
      if (!target) continue;
      for (const key of Reflect.ownKeys(target)) {
        const d = Object.getOwnPropertyDescriptor(target, key);
        seen.set(label + '.' + String(key), [d.value, d.get, d.set]);
      }
    }
  }
  return seen;
}
const before = snapshot();
for (const file of JSON.parse(process.argv[1])) require(file);
const after = snapshot();
const same = (a, b) => a.every((v, i) => Object.is(v, b[i]));
const changes = [];
for (const [key, value] of after) {
  if (!before.has(key)) changes.push({ key, kind: 'added' });
  else if (!same(before.get(key), value)) changes.push({ key, kind: 'replaced' });
}
for (const key of before.keys()) if (!after.has(key)) changes.push({ key, kind: 'removed' });
process.stdout.write(JSON.stringify(changes));
`;

async function builtInChanges(files: string[]): Promise<{ key: string; kind: string }[]> {
  const { stdout } = await run(process.execPath, ['-e', CHANGES_SCRIPT, JSON.stringify(files)], { env: { PATH: process.env.PATH ?? '' } });
  return JSON.parse(stdout) as { key: string; kind: string }[];
}

/** What core-js 2 does on a Node that needs none of its polyfills: new non-standard names only. */
const NON_STANDARD_ADDITIONS = ['Symbol.useSetter', 'Symbol.useSimple', 'globalThis.__core-js_shared__', 'globalThis.core'];

const scratch = mkdtempSync(path.join(tmpdir(), 'no-polyfills-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('core-js left out of the bundles', () => {
  it('the polyfills twitter-text brings change no standard built-in on this Node', async () => {
    // The bundle of the text rules as it would be without the alias: which core-js modules it takes.
    const options = esbuildOptions('lib/domain/x-text-length.ts', path.join(scratch, 'index.mjs'));
    expect(options.alias).toEqual(BUNDLE_ALIASES);
    const result = await build({ ...options, alias: {}, absWorkingDir: REPO_ROOT, write: false, metafile: true, logLevel: 'error' });
    const polyfills = Object.keys(result.metafile.inputs)
      .filter((input) => input.includes('node_modules/core-js/modules/'))
      .map((input) => path.join(REPO_ROOT, input));
    // twitter-text's regexp, array and object polyfills (and core-js's own helpers).
    expect(polyfills.length).toBeGreaterThan(20);

    const changes = await builtInChanges(polyfills);
    // core-js wraps Function.prototype.toString so that functions it redefines print as native
    // code; having redefined none here, the wrapper prints what the original does.
    const rest = changes.filter((change) => change.key !== 'Function.prototype.toString');
    expect(rest.filter((change) => !(change.kind === 'added' && NON_STANDARD_ADDITIONS.includes(change.key)))).toEqual([]);
  });

  it('and the bundles carry none of them', async () => {
    const result = await build({ ...esbuildOptions('lib/domain/x-text-length.ts', path.join(scratch, 'index.mjs')), absWorkingDir: REPO_ROOT, write: false, metafile: true, logLevel: 'error' });
    expect(Object.keys(result.metafile.inputs).filter((input) => input.includes('core-js'))).toEqual([]);
  });

  it('the check finds a polyfill that does replace a built-in', async () => {
    const file = path.join(scratch, 'replacing-polyfill.cjs');
    writeFileSync(file, 'const original = String.prototype.replace; String.prototype.replace = function (...args) { return original.apply(this, args); };');
    expect(await builtInChanges([file])).toEqual([{ key: 'String.prototype.replace', kind: 'replaced' }]);
  });
});
