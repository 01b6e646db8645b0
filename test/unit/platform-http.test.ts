import { describe, expect, it } from 'vitest';
import { PlatformAmbiguousError, PlatformAuthError, PlatformRateLimitedError, PlatformRefusedError, PlatformUnavailableError } from '../../lib/domain/platform-errors.js';
import { classifyNetworkError, errorForAnswer, platformMessage, rateLimitReset, redact, type PlatformCall } from '../../lib/platforms/http.js';

const create: PlatformCall = { platform: 'x', createsPost: true, timeoutMs: 1000, secrets: ['sandbox.acct_1.secretvalue'] };
const upload: PlatformCall = { ...create, createsPost: false };

function fetchFailure(code: string): TypeError {
  return new TypeError('fetch failed', { cause: Object.assign(new Error(`connect ${code}`), { code }) });
}

describe('platformMessage: what the platform said, from each error shape', () => {
  it('X invalid request: the messages of errors[] rather than the generic detail', () => {
    expect(platformMessage({ errors: [{ message: 'Your Tweet text is too long.' }], title: 'Invalid Request', detail: 'One or more parameters to your request was invalid.' })).toBe('Your Tweet text is too long.');
  });
  it('X problem object: detail', () => {
    expect(platformMessage({ title: 'Forbidden', type: 'about:blank', status: 403, detail: 'You are not allowed to create a Tweet with duplicate content.' })).toBe('You are not allowed to create a Tweet with duplicate content.');
  });
  it('X older shape: errors[].message joined', () => {
    expect(platformMessage({ errors: [{ code: 187, message: 'Status is a duplicate.' }, { code: 1, message: 'Other.' }] })).toBe('Status is a duplicate.; Other.');
  });
  it('LinkedIn: message', () => {
    expect(platformMessage({ status: 422, code: 'UNPROCESSABLE_ENTITY', message: 'ERROR :: /commentary :: too long' })).toBe('ERROR :: /commentary :: too long');
  });
  it('OAuth: error_description', () => {
    expect(platformMessage({ error: 'invalid_request', error_description: 'Value passed for the token was invalid.' })).toBe('Value passed for the token was invalid.');
  });
  it('nothing readable: null', () => {
    expect(platformMessage('oops')).toBeNull();
    expect(platformMessage({})).toBeNull();
  });
});

describe('errorForAnswer: one class per status', () => {
  const answer = (status: number, body: unknown, headers: Record<string, string> = {}) => ({ status, headers: new Headers(headers), text: JSON.stringify(body) });
  it('401 → auth, 429 → rate limited with reset, 5xx → unavailable, other 4xx → refused', () => {
    expect(errorForAnswer(answer(503, { message: 'down' }), upload)).toBeInstanceOf(PlatformUnavailableError);
    expect(errorForAnswer(answer(401, { detail: 'Unauthorized' }), create)).toBeInstanceOf(PlatformAuthError);
    const limited = errorForAnswer(answer(429, { detail: 'Too Many Requests' }, { 'x-rate-limit-reset': '2000000000' }), create);
    expect(limited).toBeInstanceOf(PlatformRateLimitedError);
    expect((limited as PlatformRateLimitedError).resetAt?.toISOString()).toBe('2033-05-18T03:33:20.000Z');
    expect(errorForAnswer(answer(500, { message: 'broken' }), create)).toBeInstanceOf(PlatformUnavailableError);
    const refused = errorForAnswer(answer(400, { message: 'bad' }), create);
    expect(refused).toBeInstanceOf(PlatformRefusedError);
    expect(refused.message).toBe('bad');
  });
  it('a gateway status (502, 503, 504) to a create is ambiguous: the platform behind it may have posted', () => {
    for (const status of [502, 503, 504]) {
      const error = errorForAnswer(answer(status, { message: 'upstream' }), create);
      expect(error).toBeInstanceOf(PlatformAmbiguousError);
      expect(error.message).toBe('upstream');
    }
  });
  it('a token echoed by the platform is blanked out of message and cause', () => {
    const error = errorForAnswer(answer(400, { message: 'token sandbox.acct_1.secretvalue is odd' }), create);
    expect(error.message).toBe('token [redacted] is odd');
    expect(JSON.stringify(error.cause)).not.toContain('secretvalue');
  });
});

describe('classifyNetworkError: before sending is safe to retry, after sending is ambiguous', () => {
  it('connection refused / DNS / connect timeout → unavailable, even for the create', () => {
    for (const code of ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT']) {
      expect(classifyNetworkError(fetchFailure(code), create)).toBeInstanceOf(PlatformUnavailableError);
    }
  });
  it('timeout or reset after sending the create → ambiguous', () => {
    expect(classifyNetworkError(new DOMException('The operation was aborted due to timeout', 'TimeoutError'), create)).toBeInstanceOf(PlatformAmbiguousError);
    expect(classifyNetworkError(fetchFailure('ECONNRESET'), create)).toBeInstanceOf(PlatformAmbiguousError);
    expect(classifyNetworkError(fetchFailure('UND_ERR_SOCKET'), create)).toBeInstanceOf(PlatformAmbiguousError);
  });
  it('the same loss on any other call (upload, delete, refresh) is harmless to repeat → unavailable', () => {
    expect(classifyNetworkError(fetchFailure('ECONNRESET'), upload)).toBeInstanceOf(PlatformUnavailableError);
    expect(classifyNetworkError(new DOMException('timeout', 'TimeoutError'), upload)).toBeInstanceOf(PlatformUnavailableError);
  });
});

describe('rateLimitReset and redact', () => {
  it('falls back to Retry-After seconds', () => {
    const now = new Date('2026-11-21T09:30:00.000Z');
    expect(rateLimitReset(new Headers({ 'retry-after': '30' }), now)?.toISOString()).toBe('2026-11-21T09:30:30.000Z');
    expect(rateLimitReset(new Headers(), now)).toBeNull();
  });
  it('blanks bearer and basic credentials even when not listed', () => {
    expect(redact('Authorization: Bearer abc.def-123 and Basic Zm9vOmJhcg==', [])).toBe('Authorization: Bearer [redacted] and Basic [redacted]');
  });
});
