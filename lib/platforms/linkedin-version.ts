/**
 * The LinkedIn-Version (YYYYMM) every versioned LinkedIn call carries: the one place to move it.
 * LinkedIn releases a version each month and keeps each for about a year; after that every call
 * with it answers 426 NONEXISTENT_VERSION ("Requested version 20240401 is not active") and nothing
 * posts. Move it at least twice a year (docs/deploy.md, "LinkedIn API version"):
 * read LinkedIn's migration notes for the months in between, change it here, run the tests
 * (the sandbox refuses a version over 12 months old as LinkedIn does) and redeploy. The
 * LINKEDIN_API_VERSION environment variable overrides it without a code change.
 */
import { PlatformVersionRetiredError } from '../domain/platform-errors.js';
import { platformMessage, parseJson, redact, type PlatformCall } from './http.js';

export const LINKEDIN_API_VERSION = '202611';

/** Where an operator changes the version: named in the advice of every post that fails for it. */
export const LINKEDIN_VERSION_SETTING = 'LINKEDIN_API_VERSION in lib/platforms/linkedin-version.ts (or the LINKEDIN_API_VERSION environment variable)';

/** LinkedIn's answer for a version it no longer (or does not yet) serve: 426 with code NONEXISTENT_VERSION. */
export function retiredVersionError(answer: { status: number; text: string }, call: PlatformCall, version: string): PlatformVersionRetiredError | null {
  const body = parseJson(answer.text);
  const code = typeof body === 'object' && body !== null && 'code' in body ? (body as { code: unknown }).code : undefined;
  if (answer.status !== 426 && code !== 'NONEXISTENT_VERSION') return null;
  const said = redact(platformMessage(body) ?? `LinkedIn answered ${answer.status}: version ${version} is not active`, call.secrets);
  return new PlatformVersionRetiredError(said, { platform: 'linkedin', status: answer.status, version, setting: LINKEDIN_VERSION_SETTING });
}
