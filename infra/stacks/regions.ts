/**
 * The region check, twice: at synthesis when the region is known (service.ts, with CDK_DEFAULT_REGION
 * as `cdk deploy` sets it), and as a CloudFormation rule in each template, which CloudFormation
 * evaluates before it creates anything, for a template synthesized without a region and deployed
 * some other way.
 */
import { Aws, CfnRule, Fn } from 'aws-cdk-lib';
import type { Stack } from 'aws-cdk-lib';
import { SUPPORTED_REGIONS, UNSUPPORTED_REGION_MESSAGE } from './deploy-settings.js';

export const REGION_RULE_ID = 'SupportedRegion';

export function addRegionRule(stack: Stack): void {
  new CfnRule(stack, REGION_RULE_ID, {
    assertions: [{ assert: Fn.conditionContains([...SUPPORTED_REGIONS], Aws.REGION), assertDescription: UNSUPPORTED_REGION_MESSAGE }],
  });
}
