import { describe, expect, it } from 'vitest';
import { ApiError } from '../../lib/domain/errors.js';
import { SCOPES, type Scope } from '../../lib/domain/model.js';
import { hasScope, requireScope } from '../../lib/domain/scopes.js';

describe('hasScope', () => {
  it('grants every scope to itself', () => {
    for (const scope of SCOPES) expect(hasScope([scope], scope)).toBe(true);
  });

  it('lets write, publish and media each imply read', () => {
    expect(hasScope(['write'], 'read')).toBe(true);
    expect(hasScope(['publish'], 'read')).toBe(true);
    expect(hasScope(['media'], 'read')).toBe(true);
  });

  it('keeps write and publish separate, not nested', () => {
    expect(hasScope(['write'], 'publish')).toBe(false);
    expect(hasScope(['publish'], 'write')).toBe(false);
  });

  it('gives nothing beyond read to read or media', () => {
    for (const needed of ['write', 'publish', 'media'] as Scope[]) expect(hasScope(['read'], needed)).toBe(false);
    expect(hasScope(['media'], 'write')).toBe(false);
    expect(hasScope(['media'], 'publish')).toBe(false);
  });

  it('grants nothing to a key without scopes', () => {
    for (const needed of SCOPES) expect(hasScope([], needed)).toBe(false);
  });

  it('grants everything to a key with all four scopes (keys created from settings)', () => {
    for (const needed of SCOPES) expect(hasScope([...SCOPES], needed)).toBe(true);
  });
});

describe('requireScope', () => {
  it('passes silently when the scope is held', () => {
    expect(() => requireScope({ scopes: ['publish'] }, 'publish')).not.toThrow();
  });

  it('throws 403 insufficient_scope naming the missing scope', () => {
    let thrown: unknown;
    try {
      requireScope({ scopes: ['write'] }, 'publish');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ApiError);
    const error = thrown as ApiError;
    expect(error.status).toBe(403);
    expect(error.toBody().error).toMatchObject({ type: 'permission_error', code: 'insufficient_scope', param: null });
    expect(error.message).toContain('publish');
  });
});
