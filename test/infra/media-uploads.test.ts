/**
 * Issue 19 item 7 on AWS, read off the synthesized data stack: browser uploads land under a prefix
 * the CDN may not read, which a lifecycle rule empties; the upload signer can write nowhere else;
 * and every media answer of the CDN carries nosniff and a sandboxing CSP (the local /media route
 * sends the same: test/http/media-uploads.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INCOMING_EXPIRY_DAYS, INCOMING_PREFIX, MEDIA_CONTENT_SECURITY_POLICY } from '../../lib/domain/media-library.js';
import { describeValue, grantsOfRole, logicalId, synthesize, type Synthesized } from './synth.js';

let s: Synthesized;
beforeAll(() => {
  s = synthesize({ bundle: false });
});
afterAll(() => s?.cleanup());

function ofType(type: string) {
  return Object.entries(s.dataJson.Resources).filter(([, resource]) => resource.Type === type);
}

describe('the media bucket', () => {
  it(`expires what is left under ${INCOMING_PREFIX} after ${INCOMING_EXPIRY_DAYS} day, and nothing else`, () => {
    const bucket = s.dataJson.Resources[logicalId(s.service.data.mediaBucket)]!;
    const rules = (bucket.Properties?.LifecycleConfiguration as { Rules: Record<string, unknown>[] } | undefined)?.Rules ?? [];
    expect(rules).toEqual([
      expect.objectContaining({ Status: 'Enabled', Prefix: INCOMING_PREFIX, ExpirationInDays: INCOMING_EXPIRY_DAYS, AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 } }),
    ]);
  });

  it(`lets the CDN read every object but those under ${INCOMING_PREFIX}`, () => {
    const policy = ofType('AWS::S3::BucketPolicy').find(([, p]) => describeValue(p.Properties!.Bucket, s) === 'bucket:media');
    const statements = (policy![1].Properties!.PolicyDocument as { Statement: Record<string, unknown>[] }).Statement;
    const denies = statements.filter((st) => st.Effect === 'Deny' && JSON.stringify(st.Principal).includes('cloudfront.amazonaws.com'));
    expect(denies).toHaveLength(1);
    expect(denies[0]?.Action).toBe('s3:GetObject');
    expect(describeValue(denies[0]?.Resource, s)).toBe(`bucket:media/${INCOMING_PREFIX}*`);
  });
});

describe('the media CDN', () => {
  it('answers with nosniff and a sandboxing CSP, over whatever the bucket says', () => {
    const distribution = ofType('AWS::CloudFront::Distribution')[0]![1];
    const behavior = (distribution.Properties?.DistributionConfig as { DefaultCacheBehavior: { ResponseHeadersPolicyId?: { Ref?: string } } }).DefaultCacheBehavior;
    const policyId = behavior.ResponseHeadersPolicyId?.Ref ?? '';
    const policy = s.dataJson.Resources[policyId];
    expect(policy?.Type).toBe('AWS::CloudFront::ResponseHeadersPolicy');
    const security = (policy?.Properties?.ResponseHeadersPolicyConfig as { SecurityHeadersConfig: Record<string, unknown> }).SecurityHeadersConfig;
    expect(security.ContentTypeOptions).toEqual({ Override: true });
    expect(security.ContentSecurityPolicy).toEqual({ ContentSecurityPolicy: MEDIA_CONTENT_SECURITY_POLICY, Override: true });
    expect(MEDIA_CONTENT_SECURITY_POLICY).toBe("default-src 'none'; sandbox");
  });
});

describe('the upload signer', () => {
  it(`may put objects under ${INCOMING_PREFIX} only, so a signed upload cannot land where media is served`, () => {
    const grants = grantsOfRole(s, logicalId(s.service.api.mediaUploadSigner));
    expect(grants.map((grant) => ({ actions: grant.actions, resources: grant.resources }))).toEqual([{ actions: ['s3:PutObject'], resources: [`bucket:media/${INCOMING_PREFIX}*`] }]);
  });

  it('is assumed for an hour at most, only by principals of this account granted it: the functions that presign uploads, which may not put objects themselves', () => {
    const role = s.apiJson.Resources[logicalId(s.service.api.mediaUploadSigner)]!;
    expect(role.Properties?.MaxSessionDuration).toBe(3600);
    const trust = JSON.stringify(role.Properties?.AssumeRolePolicyDocument);
    expect(trust).toContain(':root');
    expect(trust).not.toContain('"*"');
    for (const name of ['CreateMedia', 'SettingsMediaUpload']) {
      const fn = s.service.api.functions.get(name)!;
      const grants = grantsOfRole(s, logicalId(fn.role!));
      expect(grants.filter((grant) => grant.actions.includes('s3:PutObject'))).toEqual([]);
      expect(grants.filter((grant) => grant.actions.includes('sts:AssumeRole')).flatMap((grant) => grant.resources)).toEqual(['role:media-upload-signer']);
    }
  });
});

