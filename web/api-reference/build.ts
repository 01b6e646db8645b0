/**
 * The API reference at /docs: openapi.yaml rendered by Redoc (`redocly build-docs`, the
 * devDependency @redocly/cli), then taken apart so that it runs under the settings pages' strict
 * Content-Security-Policy (lib/web/security-headers.ts: nothing inline):
 *
 *   index.html    the prerendered page with no inline <script>, <style> or style="" left
 *   reference.js  Redoc's bundle with the API definition and the hydrate call (script-src 'self')
 *   theme.js      Redoc's light/dark choice, run before the first paint as in Redoc's own page
 *   reference.css the prerendered styles, and the page's style="" attributes as rules
 *   *.gz          the same, gzipped once here (the JavaScript is 2 MB, 0.6 MB gzipped)
 *
 * It is built from the openapi.yaml of the moment, never committed: the local stack builds it at
 * start and the CDK app at synth (each time openapi.yaml or the renderer changed, else the last
 * build is reused), so the page can never describe an older API than the one deployed with it.
 * The bundle is loaded from /docs itself, not Redocly's CDN, and telemetry is off.
 */
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
/** Where the build goes: ignored by git (dist/), copied beside the /docs function on AWS. */
export const API_REFERENCE_DIR = join(REPO_ROOT, 'dist', 'api-reference');
/** The files /docs serves, by name; nothing else is reachable. */
export const API_REFERENCE_FILES = ['index.html', 'reference.js', 'theme.js', 'reference.css'] as const;
const STAMP = 'source.sha256';

/** What the build depends on: the definition and the renderer's version. */
function sourceStamp(openapiPath: string): string {
  const cli = JSON.parse(readFileSync(join(REPO_ROOT, 'node_modules', '@redocly', 'cli', 'package.json'), 'utf8')) as { version: string };
  return createHash('sha256').update(readFileSync(openapiPath)).update(`\0redocly ${cli.version}\0split 1`).digest('hex');
}

interface SplitPage {
  html: string;
  script: string;
  theme: string;
  css: string;
}

/** Takes Redoc's single-file page apart: every inline script and style leaves the HTML. */
export function splitRedocPage(page: string): SplitPage {
  const scripts: Array<{ attributes: string; body: string }> = [];
  const styles: string[] = [];
  let html = page.replace(/<script([^>]*)>([\s\S]*?)<\/script>/g, (_match, attributes: string, body: string) => {
    scripts.push({ attributes, body });
    return '';
  });
  html = html.replace(/<style[^>]*>([\s\S]*?)<\/style>/g, (_match, body: string) => {
    styles.push(body);
    return '';
  });
  // style="" attributes: each becomes a rule on a data attribute of its own.
  let count = 0;
  html = html.replace(/\sstyle="([^"]*)"/g, (_match, declarations: string) => {
    count += 1;
    styles.push(`[data-redoc-style="${count}"]{${declarations.replaceAll('&quot;', '"').replaceAll('&amp;', '&')}}`);
    return ` data-redoc-style="${count}"`;
  });
  // Redoc preloads its bundle from its CDN (with the inline bundle it is not needed at all).
  html = html.replace(/<link rel="modulepreload"[^>]*>/g, '');
  const module = scripts.find((script) => /type="module"/.test(script.attributes));
  const theme = scripts.find((script) => !/type="module"/.test(script.attributes) && /colorMode/.test(script.body));
  if (!module || !theme || scripts.length !== 2) throw new Error(`Redoc's page changed shape: ${scripts.length} inline scripts; see web/api-reference/build.ts`);
  if (/<script[\s>]|<style[\s>]|\sstyle=|\son[a-z]+=/i.test(html)) throw new Error('Redoc\'s page still has inline script or style after the split; see web/api-reference/build.ts');
  html = html.replace('</head>', '<link rel="stylesheet" href="/docs/reference.css">\n<script src="/docs/theme.js"></script>\n<script type="module" src="/docs/reference.js"></script>\n</head>');
  return { html, script: module.body, theme: theme.body, css: styles.join('\n') };
}

function runRedocly(openapiPath: string, output: string): void {
  execFileSync(
    join(REPO_ROOT, 'node_modules', '.bin', 'redocly'),
    ['build-docs', openapiPath, '--inlineBundle', '--output', output, '--title', 'Social Publishing API reference', '--openapi.disableTelemetry=true'],
    // Redocly's own banners (its Node 20 notice among them) are build chatter: only a failure is shown.
    { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' } },
  );
}

/**
 * Builds the reference into API_REFERENCE_DIR unless the build there is of this very
 * openapi.yaml; returns the directory. Synchronous (the CDK app is), safe for several processes
 * at once (each builds aside and renames into place).
 */
export function buildApiReference(openapiPath = join(REPO_ROOT, 'openapi.yaml'), outDir = API_REFERENCE_DIR): string {
  const stamp = sourceStamp(openapiPath);
  const stampFile = join(outDir, STAMP);
  if (existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp) return outDir;
  const work = `${outDir}.${randomBytes(6).toString('hex')}`;
  mkdirSync(work, { recursive: true });
  try {
    runRedocly(openapiPath, join(work, 'redoc.html'));
    const split = splitRedocPage(readFileSync(join(work, 'redoc.html'), 'utf8'));
    rmSync(join(work, 'redoc.html'));
    const files: Record<(typeof API_REFERENCE_FILES)[number], string> = {
      'index.html': split.html,
      'reference.js': split.script,
      'theme.js': split.theme,
      'reference.css': split.css,
    };
    for (const [name, body] of Object.entries(files)) {
      writeFileSync(join(work, name), body);
      writeFileSync(join(work, `${name}.gz`), gzipSync(body, { level: 9 }));
    }
    writeFileSync(join(work, STAMP), stamp);
    // Another process may have put the same build in place meanwhile: keep it (a reader may be using it).
    if (existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp) return outDir;
    rmSync(outDir, { recursive: true, force: true });
    try {
      renameSync(work, outDir);
    } catch (error) {
      // Another process renamed its build of the same stamp into place first.
      if (!(existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp)) throw error;
    }
    return outDir;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
