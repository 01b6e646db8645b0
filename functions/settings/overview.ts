/** GET /settings: the Overview (the path to a first post, how to call the API, plan and allowance, counts of keys, accounts and posts; sign out of other browsers). */
import { DynamoDbAccountStore } from '../../lib/store/dynamodb-account-store.js';
import { DynamoDbApiKeyStore } from '../../lib/store/dynamodb-api-key-store.js';
import { DynamoDbMediaLibraryStore } from '../../lib/store/dynamodb-media-library.js';
import { DynamoDbPostCounter } from '../../lib/store/dynamodb-post-count.js';
import { GetOverview } from '../../lib/use-cases/settings/overview.js';
import { serviceAddresses } from '../../lib/web/pages/get-started.js';
import { overviewPage } from '../../lib/web/pages/overview-page.js';
import { directoryTable, webClock, webSettings } from '../../lib/web/web-dependencies.js';
import { signedInHandler } from '../../lib/web/web-handler.js';

let overview: GetOverview | undefined;

export const handler = signedInHandler(async (request, signedIn) => {
  overview ??= new GetOverview({
    keys: new DynamoDbApiKeyStore(),
    accounts: new DynamoDbAccountStore(),
    posts: new DynamoDbPostCounter(),
    media: new DynamoDbMediaLibraryStore(directoryTable()),
    clock: webClock,
  });
  const ended = /^\d{1,4}$/.test(request.query.otherSessionsEnded ?? '') ? Number(request.query.otherSessionsEnded) : null;
  const session = { csrfToken: signedIn.session.csrfToken, otherSessionsEnded: ended };
  return { kind: 'page', title: 'Overview', body: overviewPage(await overview.execute(signedIn.caller), serviceAddresses(webSettings().origin), session) };
});
