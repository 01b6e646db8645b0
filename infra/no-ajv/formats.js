// See index.js: ajv-formats is only ever applied to an ajv instance, which the bundles never build.
export default function addFormats() {
  throw new Error('ajv-formats is left out of the function bundles (infra/constructs/bundling.ts).');
}
