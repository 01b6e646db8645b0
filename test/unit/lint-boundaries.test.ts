/**
 * The layers' boundaries in eslint.config.js bite: the repository's own ESLint configuration,
 * given an import at a path inside a folder, reports the wrong arrows and lets the right ones be.
 * The files need not exist: ESLint lints the text as if it were there.
 */
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../local/lambda-runtime.js';

let eslint: ESLint;
beforeAll(() => {
  eslint = new ESLint({ cwd: REPO_ROOT });
});

/** The no-restricted-imports messages for one import of `source` written in `filePath`. */
async function boundaryErrors(filePath: string, source: string): Promise<string[]> {
  const [result] = await eslint.lintText(`import { something } from '${source}';\nexport const used = something;\n`, { filePath });
  if (!result) throw new Error(`ESLint returned no result for ${filePath}`);
  return result.messages.filter((message) => message.ruleId === 'no-restricted-imports').map((message) => message.message);
}

const WRONG: [string, string, RegExp][] = [
  ['lib/domain/boundary-probe.ts', '@aws-sdk/client-dynamodb', /pure rules/],
  ['lib/domain/boundary-probe.ts', '@aws-lambda-powertools/logger', /pure rules/],
  ['lib/domain/boundary-probe.ts', '@middy/core', /pure rules/],
  ['lib/domain/boundary-probe.ts', '../store/post-item.js', /imports nothing outward/],
  ['lib/domain/views/boundary-probe.ts', '../../store/post-item.js', /imports nothing outward/],
  ['lib/domain/boundary-probe.ts', '../http/api-request.js', /imports nothing outward/],
  ['lib/domain/boundary-probe.ts', '../dispatch/messages.js', /imports nothing outward/],
  ['lib/domain/boundary-probe.ts', '../platforms/x-client.js', /imports nothing outward/],
  ['lib/domain/boundary-probe.ts', '../use-cases/get-post.js', /imports nothing outward/],
  ['lib/domain/boundary-probe.ts', '../../functions/catalogue.js', /imports nothing outward/],
  ['lib/domain/boundary-probe.ts', '../../infra/stacks/service.js', /Runtime code/],
  ['lib/domain/boundary-probe.ts', '../observability.js', /does not log/],
  ['lib/domain/boundary-probe.ts', '../secrets.js', /no configuration or secrets/],
  ['lib/domain/boundary-probe.ts', '../cold-start.js', /no configuration or secrets/],
  ['lib/domain/boundary-probe.ts', '../worker-metrics.js', /does not log/],
  // Only lib/domain, node: built-ins, valibot and twitter-text: everything else is caught too.
  ['lib/domain/boundary-probe.ts', '../ids.js', /imports only from lib\/domain/],
  ['lib/domain/boundary-probe.ts', '../some-new-module.js', /imports only from lib\/domain/],
  ['lib/domain/boundary-probe.ts', '../web/session.js', /imports only from lib\/domain/],
  ['lib/domain/views/boundary-probe.ts', '../../ids.js', /imports only from lib\/domain/],
  ['lib/domain/views/boundary-probe.ts', '../../../local/stack.js', /Runtime code/],
  ['lib/domain/boundary-probe.ts', 'openid-client', /only node: built-ins, valibot and twitter-text/],
  ['lib/domain/boundary-probe.ts', '@modelcontextprotocol/sdk/server/mcp.js', /only node: built-ins/],
  ['lib/domain/boundary-probe.ts', 'aws-cdk-lib', /never imports the CDK/],
  ['lib/use-cases/boundary-probe.ts', '../store/post-item.js', /import no adapter/],
  ['lib/use-cases/boundary-probe.ts', '../dispatch/publish-dispatcher.js', /import no adapter/],
  ['lib/use-cases/boundary-probe.ts', '../platforms/x-client.js', /import no adapter/],
  ['lib/use-cases/boundary-probe.ts', '../http/api-request.js', /import no adapter/],
  ['lib/use-cases/admin/boundary-probe.ts', '../../store/post-item.js', /import no adapter/],
  ['lib/use-cases/boundary-probe.ts', '@aws-sdk/client-sqs', /only through ports/],
  ['lib/use-cases/boundary-probe.ts', '../config.js', /build no adapters/],
  ['lib/use-cases/boundary-probe.ts', '../cold-start.js', /build no adapters/],
  ['lib/store/boundary-probe.ts', '../../local/stack.js', /Runtime code/],
  ['lib/boundary-probe.ts', '../test/support/provision.js', /Runtime code/],
  ['functions/boundary-probe.ts', '../infra/constructs/service-function.js', /Runtime code/],
  ['functions/boundary-probe.ts', '../admin/admin-cli.js', /Runtime code/],
  ['functions/boundary-probe.ts', '../bench/stats.js', /Runtime code/],
  ['functions/boundary-probe.ts', 'aws-cdk-lib/aws-lambda', /never imports the CDK/],
  // The one known exception (see eslint.config.js) lets one module through, not the folder.
  ['lib/use-cases/publish-post.ts', '../dispatch/publish-dispatcher.js', /import no adapter/],
  ['lib/use-cases/get-post.ts', '../dispatch/messages.js', /import no adapter/],
  // The SDK package runs on edge runtimes and installs alone: its own files only.
  ['sdk/src/boundary-probe.ts', 'node:crypto', /sdk\/src imports only its own modules/],
  ['sdk/src/boundary-probe.ts', 'standardwebhooks', /sdk\/src imports only its own modules/],
  ['sdk/src/boundary-probe.ts', '../../lib/domain/model.js', /sdk\/src imports only its own modules/],
  ['sdk/src/boundary-probe.ts', '../package.json', /sdk\/src imports only its own modules/],
];

const RIGHT: [string, string][] = [
  ['lib/domain/boundary-probe.ts', './model.js'],
  ['lib/domain/views/boundary-probe.ts', '../model.js'],
  ['lib/domain/boundary-probe.ts', 'valibot'],
  ['lib/domain/boundary-probe.ts', 'node:crypto'],
  ['lib/domain/boundary-probe.ts', 'valibot/dist/index.js'],
  ['lib/domain/boundary-probe.ts', 'twitter-text'],
  ['lib/domain/boundary-probe.ts', './ids.js'],
  ['lib/domain/boundary-probe.ts', '../domain/ids.js'],
  ['lib/domain/views/boundary-probe.ts', '../ids.js'],
  ['lib/domain/views/boundary-probe.ts', './post-view.js'],
  ['lib/use-cases/boundary-probe.ts', '../domain/model.js'],
  ['lib/use-cases/boundary-probe.ts', './post-lookup.js'],
  ['lib/use-cases/admin/boundary-probe.ts', '../../domain/api-key.js'],
  ['lib/store/boundary-probe.ts', '@aws-sdk/lib-dynamodb'],
  ['lib/store/boundary-probe.ts', '../domain/model.js'],
  ['functions/boundary-probe.ts', '../lib/http/api-handler.js'],
  ['functions/boundary-probe.ts', '../lib/store/dynamodb-post-store.js'],
  ['local/boundary-probe.ts', '../infra/constructs/service-function.js'],
  ['test/boundary-probe.ts', '../local/stack.js'],
  ['sdk/src/boundary-probe.ts', './errors.js'],
  ['sdk/src/boundary-probe.ts', './generated/openapi.js'],
];

describe('import boundaries (eslint.config.js)', () => {
  it.each(WRONG)('%s may not import %s', async (filePath, source, reason) => {
    const errors = await boundaryErrors(filePath, source);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(reason);
  });

  it.each(RIGHT)('%s may import %s', async (filePath, source) => {
    expect(await boundaryErrors(filePath, source)).toEqual([]);
  });
});
