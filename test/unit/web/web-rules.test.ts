/** The settings app's pure rules: escaping templates, safe return paths, cookie values, CSRF compare, CSP. */
import { describe, expect, it } from 'vitest';
import { readCookie, setCookie } from '../../../lib/web/cookies.js';
import { csrfTokenMatches, originAllowed } from '../../../lib/web/csrf.js';
import { html, raw } from '../../../lib/web/html.js';
import { contentSecurityPolicy } from '../../../lib/web/security-headers.js';
import { safeReturnPath } from '../../../lib/web/web-request.js';

describe('html', () => {
  it('escapes every interpolation, including inside attributes, and never escapes twice', () => {
    const name = `"><script>alert('x')</script>&`;
    const inner = html`<b>${name}</b>`;
    const page = html`<p title="${name}">${inner}${[name, 1, null, false, undefined]}</p>`;
    expect(page.value).toBe(
      '<p title="&quot;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;"><b>&quot;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;</b>&quot;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;1</p>',
    );
    expect(html`${raw('<br>')}`.value).toBe('<br>');
  });
});

describe('safeReturnPath', () => {
  it.each([
    ['/settings/keys', '/settings/keys'],
    ['/settings/posts?status=failed', '/settings/posts?status=failed'],
    ['/settings', '/settings'],
  ])('keeps %s', (input, expected) => expect(safeReturnPath(input)).toBe(expected));

  it.each(['//evil.example', '/\\evil.example', 'https://evil.example/settings', '/settings//evil', '/settings/../api', '/settingsx', 'javascript:alert(1)', undefined, `/settings/${'a'.repeat(400)}`])(
    'refuses %s',
    (input) => expect(safeReturnPath(input)).toBe('/settings'),
  );
});

describe('cookies', () => {
  it('reads only values shaped like ours and writes HttpOnly, SameSite=Lax, Secure when asked', () => {
    const value = 'A'.repeat(43);
    expect(readCookie([`other=1`, `sp_session=${value}`], 'sp_session')).toBe(value);
    expect(readCookie([`sp_session=short`], 'sp_session')).toBeNull();
    expect(readCookie([`sp_session=${'A'.repeat(42)};`], 'sp_session')).toBeNull();
    expect(setCookie('sp_session', value, { path: '/settings', maxAgeSeconds: 60, secure: true })).toBe(
      `sp_session=${value}; Path=/settings; Max-Age=60; HttpOnly; SameSite=Lax; Secure`,
    );
    expect(setCookie('sp_session', value, { path: '/settings', maxAgeSeconds: 60, secure: false })).not.toContain('Secure');
  });
});

describe('csrf', () => {
  it('matches the exact token only, and only our origin (or none)', () => {
    expect(csrfTokenMatches('abc', 'abc')).toBe(true);
    expect(csrfTokenMatches('abc', 'abd')).toBe(false);
    expect(csrfTokenMatches('abc', 'abcd')).toBe(false);
    expect(csrfTokenMatches('abc', undefined)).toBe(false);
    expect(originAllowed(undefined, 'https://a.example')).toBe(true);
    expect(originAllowed('https://a.example', 'https://a.example')).toBe(true);
    expect(originAllowed('null', 'https://a.example')).toBe(false);
    expect(originAllowed('https://b.example', 'https://a.example')).toBe(false);
  });
});

describe('content security policy', () => {
  it('allows no inline script or style and no framing', () => {
    const csp = contentSecurityPolicy();
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).toContain("frame-ancestors 'none'");
  });
});
