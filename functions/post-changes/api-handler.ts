/** The API route of publish and retry (functions/publish-draft.ts, retry-post.ts). */
import { apiHandler } from '../../lib/http/api-handler.js';
import { authenticatedPipeline } from '../../lib/http/api-pipeline.js';
import { optionalJsonObject } from '../../lib/http/json-body.js';
import { DirectoryTable } from '../../lib/store/directory-table.js';
import { DynamoDbIdempotencyStore } from '../../lib/store/dynamodb-idempotency-store.js';
import { systemClock } from '../../lib/use-cases/ports/clock.js';
import type { SendPostDeps } from '../../lib/use-cases/publish-draft.js';
import { sendPostDeps, type SendsPost } from './wiring.js';

/**
 * The API route (scope `publish`): the body is optional (`{"scheduledFor": ...}`), so it is parsed
 * here rather than by the pipeline; the Idempotency-Key is kept as for a create.
 */
export function sendPostApiHandler(build: (deps: SendPostDeps) => SendsPost) {
  return apiHandler({ scope: 'publish' }, () => {
    const directory = new DirectoryTable();
    const useCase = build(sendPostDeps(directory, new DynamoDbIdempotencyStore(), systemClock));
    return {
      pipeline: authenticatedPipeline(directory),
      route: async (request, caller) => {
        const body = await optionalJsonObject(request.rawBody, request.headers['content-type']);
        return useCase.execute(caller, request.pathParameters.id ?? '', body, request.headers['idempotency-key']);
      },
    };
  });
}

