/**
 * The one DynamoDB client of a process, built at module scope so a Lambda reuses its connections
 * across invocations. No endpoint is configured here on purpose: the SDK reads
 * AWS_ENDPOINT_URL_DYNAMODB itself, which the local stack and tests set to DynamoDB Local, and
 * which is unset on AWS.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { meterSdkClient } from './sdk-metering.js';

export const dynamoDbClient = new DynamoDBClient({});
// Off unless SDK_METERING=1 (the bench's local stack): counts requests and capacity units.
meterSdkClient(dynamoDbClient, 'dynamodb');

export const documentClient = DynamoDBDocumentClient.from(dynamoDbClient, {
  // Optional fields (e.g. Account.sandbox) are simply absent from the item rather than an error.
  marshallOptions: { removeUndefinedValues: true },
});
