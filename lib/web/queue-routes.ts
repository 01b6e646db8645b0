/** An account's queue in settings: the page and its form, through the API's own use case (AccountQueues). */
import { ApiError } from '../domain/errors.js';
import type { Account } from '../domain/model.js';
import { DynamoDbAccountStore } from '../store/dynamodb-account-store.js';
import { DynamoDbQueueStore } from '../store/dynamodb-queue-store.js';
import { AccountQueues } from '../use-cases/queues.js';
import { queuePage, slotsFromText } from './pages/queue-page.js';
import { manageWorkspaces, orNotFound } from './settings-dependencies.js';
import { directoryTable, webClock } from './web-dependencies.js';
import type { SignedInRoute } from './web-handler.js';

let queues: AccountQueues | undefined;

function accountQueues(): AccountQueues {
  queues ??= new AccountQueues({ accounts: new DynamoDbAccountStore(directoryTable()), queues: new DynamoDbQueueStore(directoryTable()), clock: webClock });
  return queues;
}

export const queuePageRoute: SignedInRoute = async (request, signedIn) => {
  const account: Account = await orNotFound('account', () => manageWorkspaces().account(signedIn.caller, request.pathParameters.id ?? ''));
  const queue = await accountQueues().get(signedIn.caller, account.id);
  const saved = request.query.done === 'saved' ? { text: 'Posting times saved.' } : undefined;
  return { kind: 'page', title: 'Posting times', body: queuePage(account, queue, signedIn.session.csrfToken, undefined, saved) };
};

export const saveQueueRoute: SignedInRoute = async (request, signedIn) => {
  const account: Account = await orNotFound('account', () => manageWorkspaces().account(signedIn.caller, request.pathParameters.id ?? ''));
  const form = { timeZone: request.form.timeZone ?? '', slots: request.form.slots ?? '' };
  try {
    await accountQueues().put(signedIn.caller, account.id, { timeZone: form.timeZone, slots: slotsFromText(form.slots) });
    return { kind: 'redirect', location: `/settings/accounts/${encodeURIComponent(account.id)}/queue?done=saved` };
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 400) throw error;
    const queue = await accountQueues().get(signedIn.caller, account.id);
    return { kind: 'page', status: 400, title: 'Posting times', body: queuePage(account, queue, signedIn.session.csrfToken, form, { text: error.message, error: true }) };
  }
};
