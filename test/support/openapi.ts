/**
 * openapi.yaml as a test oracle: every response an HTTP test receives through `documentedApi` is
 * checked against the operation (method + path template) and status it answers, so the document
 * cannot drift from the code. Checked: the status is documented for the operation, the body
 * validates against the documented JSON Schema (OpenAPI 3.1 = JSON Schema 2020-12, ajv), and every
 * documented header that is required is present and valid. The document is loaded once per test file.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { parse } from 'yaml';
import { api, clientOf, type ApiClient, type ApiResponse, type RequestOptions } from './http.js';

export const OPENAPI_PATH = fileURLToPath(new URL('../../openapi.yaml', import.meta.url));
const DOCUMENT_ID = 'openapi.json';

type Json = Record<string, unknown>;

export class OpenApiMismatchError extends Error {
  readonly code = 'openapi_mismatch';
  constructor(message: string) {
    super(message);
    this.name = 'OpenApiMismatchError';
  }
}

let loaded: { document: Json; ajv: Ajv2020; compiled: Map<string, ValidateFunction> } | undefined;

function load() {
  if (!loaded) {
    const document = parse(readFileSync(OPENAPI_PATH, 'utf8')) as Json;
    // OpenAPI keywords that are not JSON Schema (description texts, examples) are ignored, not errors.
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    // ajv-formats is CommonJS: its default export arrives wrapped under NodeNext.
    const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => void;
    addFormats(ajv);
    ajv.addSchema(document, DOCUMENT_ID);
    loaded = { document, ajv, compiled: new Map() };
  }
  return loaded;
}

export function openApiDocument(): Json {
  return load().document;
}

function escapePointer(segment: string): string {
  return segment.replaceAll('~', '~0').replaceAll('/', '~1');
}

function at(pointer: string): unknown {
  let node: unknown = load().document;
  for (const raw of pointer.replace(/^#\//, '').split('/')) {
    const segment = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    node = typeof node === 'object' && node !== null ? (node as Json)[segment] : undefined;
  }
  return node;
}

/** Follows `$ref`s to the object itself, returning it and the pointer where it lives. */
function deref(pointer: string): { node: Json; pointer: string } {
  let current = pointer;
  for (let hops = 0; hops < 10; hops++) {
    const node = at(current);
    if (typeof node !== 'object' || node === null) throw new OpenApiMismatchError(`Nothing at ${current} in openapi.yaml`);
    const ref = (node as Json).$ref;
    if (typeof ref !== 'string') return { node: node as Json, pointer: current };
    current = ref;
  }
  throw new OpenApiMismatchError(`Too many $ref hops from ${pointer}`);
}

function validator(schemaPointer: string): ValidateFunction {
  const { ajv, compiled } = load();
  let validate = compiled.get(schemaPointer);
  if (!validate) {
    validate = ajv.compile({ $ref: `${DOCUMENT_ID}${schemaPointer}` });
    compiled.set(schemaPointer, validate);
  }
  return validate;
}

/** The path template of openapi.yaml that a concrete path (relative to the base URL) matches. */
export function matchPathTemplate(path: string): string {
  const pathname = path.split('?')[0] ?? path;
  const templates = Object.keys((load().document.paths ?? {}) as Json);
  for (const template of templates) {
    const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`);
    if (pattern.test(pathname)) return template;
  }
  throw new OpenApiMismatchError(`No path of openapi.yaml matches ${pathname}`);
}

/** Throws OpenApiMismatchError unless the response is one openapi.yaml documents for this operation. */
export function assertDocumentedResponse(method: string, path: string, response: ApiResponse): void {
  const template = matchPathTemplate(path);
  const operationPointer = `#/paths/${escapePointer(template)}/${method.toLowerCase()}`;
  if (at(operationPointer) === undefined) throw new OpenApiMismatchError(`${method} ${template} is not in openapi.yaml`);
  const responsePointer = `${operationPointer}/responses/${response.status}`;
  if (at(responsePointer) === undefined) {
    throw new OpenApiMismatchError(`${method} ${template}: status ${response.status} is not documented (body: ${response.text.slice(0, 300)})`);
  }
  const { node: documented, pointer } = deref(responsePointer);
  const where = `${method} ${template} ${response.status}`;

  const content = documented.content as Json | undefined;
  if (content?.['application/json']) {
    if (!(response.headers['content-type'] ?? '').startsWith('application/json')) {
      throw new OpenApiMismatchError(`${where}: content-type ${response.headers['content-type'] ?? '(none)'} is not JSON`);
    }
    const validate = validator(`${pointer}/content/application~1json/schema`);
    if (!validate(response.body)) {
      throw new OpenApiMismatchError(
        `${where}: body does not match openapi.yaml: ${JSON.stringify(validate.errors?.slice(0, 5))}\nbody: ${response.text.slice(0, 500)}`,
      );
    }
  }

  for (const name of Object.keys((documented.headers ?? {}) as Json)) {
    const headerPointer = `${pointer}/headers/${escapePointer(name)}`;
    const { node: header, pointer: resolved } = deref(headerPointer);
    const received = response.headers[name.toLowerCase()];
    if (received === undefined) {
      if (header.required === true) throw new OpenApiMismatchError(`${where}: required header ${name} is missing`);
      continue;
    }
    const schema = header.schema as Json | undefined;
    const parsed = schema?.type === 'integer' && /^-?\d+$/.test(received) ? Number(received) : received;
    const validate = validator(`${resolved}/schema`);
    if (!validate(parsed)) throw new OpenApiMismatchError(`${where}: header ${name}: ${received} does not match openapi.yaml`);
  }
}

/** The API client of test/support/http.ts, checking every response against openapi.yaml before returning it. */
export function documentedApi(baseUrl: string, key?: string): ApiClient {
  const client = api(baseUrl, key);
  const request = async <T>(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> => {
    const response = await client.request<T>(method, path, options);
    assertDocumentedResponse(method, path, response);
    return response;
  };
  return clientOf(request);
}

/**
 * fetch for an SDK under test: each response is checked against openapi.yaml, and a mismatch is
 * pushed on `mismatches` (the test asserts it empty at the end) instead of failing the SDK call.
 */
export function documentedFetch(baseUrl: string, mismatches: string[]): typeof fetch {
  const basePath = new URL(baseUrl).pathname;
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    // Only the API's answers are the contract's: a presigned upload goes to storage.
    if (!url.href.startsWith(baseUrl)) return fetch(input, init);
    const response = await fetch(input, init);
    const text = await response.text();
    try {
      assertDocumentedResponse(init?.method ?? 'GET', url.pathname.slice(basePath.length), {
        status: response.status,
        headers: Object.fromEntries(response.headers),
        body: text === '' ? undefined : JSON.parse(text),
        text,
      });
    } catch (error) {
      mismatches.push(String(error));
    }
    return new Response(text, { status: response.status, headers: response.headers });
  };
}
