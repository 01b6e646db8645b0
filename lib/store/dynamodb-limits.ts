/** DynamoDB's own limits that the stores' batching keeps within. */

/** DynamoDB's most actions in one TransactWriteItems. */
export const MAX_TRANSACTION_ITEMS = 100;
