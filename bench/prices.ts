/**
 * Published on-demand prices, US East (N. Virginia), in USD, as used for "cost per 1,000
 * published posts". Free tiers are NOT subtracted (the figure is the marginal cost at volume).
 * Each price names where it was read; check them again when the figure matters, AWS changes them.
 */
export interface Price {
  usd: number;
  per: string;
  source: string[];
  note?: string;
}

export const PRICES_CHECKED_ON = '2026-11-21';

export const PRICES = {
  dynamodbWriteRequestUnit: {
    usd: 0.625 / 1e6,
    per: 'write request unit (on-demand, Standard table class)',
    source: ['https://aws.amazon.com/dynamodb/pricing/on-demand/', 'https://airbyte.com/data-engineering-resources/dynamodb-pricing'],
    note: '$0.625 per million WRU since the November 2024 on-demand price cut',
  },
  dynamodbReadRequestUnit: {
    usd: 0.125 / 1e6,
    per: 'read request unit (on-demand, Standard table class)',
    source: ['https://aws.amazon.com/dynamodb/pricing/on-demand/', 'https://airbyte.com/data-engineering-resources/dynamodb-pricing'],
    note: '$0.125 per million RRU',
  },
  sqsRequest: {
    usd: 0.4 / 1e6,
    per: 'SQS standard queue request (each 64 KB chunk of a request)',
    source: ['https://aws.amazon.com/sqs/pricing/', 'https://cloudburn.io/blog/amazon-sqs-pricing'],
    note: '$0.40 per million requests (first 100 billion a month)',
  },
  schedulerInvocation: {
    usd: 1.0 / 1e6,
    per: 'EventBridge Scheduler invocation',
    source: ['https://aws.amazon.com/eventbridge/pricing/', 'https://cloudburn.io/blog/amazon-eventbridge-pricing'],
    note: '$1.00 per million invocations after 14 million free a month (not subtracted); creating schedules is not charged',
  },
  httpApiRequest: {
    usd: 1.0 / 1e6,
    per: 'API Gateway HTTP API request (512 KB increments)',
    source: ['https://aws.amazon.com/api-gateway/pricing/', 'https://awsforengineers.com/blog/aws-api-gateway-pricing-explained'],
    note: '$1.00 per million for the first 300 million a month',
  },
  lambdaRequest: {
    usd: 0.2 / 1e6,
    per: 'Lambda invocation',
    source: ['https://aws.amazon.com/lambda/pricing/', 'https://cloudchipr.com/blog/aws-lambda-pricing'],
    note: '$0.20 per million requests',
  },
  kmsRequest: {
    usd: 0.03 / 1e4,
    per: 'KMS API request (Decrypt, symmetric key)',
    source: ['https://aws.amazon.com/kms/pricing/'],
    note: '$0.03 per 10,000 requests after 20,000 free a month (not subtracted)',
  },
  lambdaArmGbSecond: {
    usd: 0.0000133334,
    per: 'Lambda GB-second, arm64 (first 7.5 billion GB-s a month)',
    source: ['https://aws.amazon.com/lambda/pricing/', 'https://cloudchipr.com/blog/aws-lambda-pricing'],
  },
  s3PutRequest: {
    usd: 0.005 / 1e3,
    per: 'S3 Standard PUT, COPY, POST or LIST request',
    source: ['https://aws.amazon.com/s3/pricing/'],
    note: '$0.005 per 1,000 requests',
  },
  s3GetRequest: {
    usd: 0.0004 / 1e3,
    per: 'S3 Standard GET, HEAD or other read request',
    source: ['https://aws.amazon.com/s3/pricing/'],
    note: '$0.0004 per 1,000 requests; DELETE is free',
  },
  s3StorageGbMonth: {
    usd: 0.023,
    per: 'S3 Standard storage, GB-month (first 50 TB)',
    source: ['https://aws.amazon.com/s3/pricing/'],
  },
} as const satisfies Record<string, Price>;
