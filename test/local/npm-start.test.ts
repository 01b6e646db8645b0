/**
 * `npm start` as a user runs it, twice on one data directory: each start prints its banner first,
 * no warning at all and each address once; the first start seeds the demo user and prints a curl
 * line that works as printed; everything written (DynamoDB data, media files,
 * pending schedules) is still there after a restart; SIGTERM and SIGINT both stop it cleanly and
 * leave no DynamoDB Local JVM behind. Other processes reach the running stack through
 * DATA_DIR/stack.json, as the admin CLI does.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { CreateScheduleCommand, SchedulerClient } from '@aws-sdk/client-scheduler';
import { GetQueueUrlCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../local/local-aws.js';
import { s3ClientFor, sqsClientFor } from '../../local/messaging.js';
import { REPO_ROOT } from '../../local/lambda-runtime.js';
import type { StackInfo } from '../../local/stack.js';

const started: ChildProcess[] = [];
let dataDir: string | undefined;

afterAll(async () => {
  for (const child of started) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

interface Started {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

/**
 * The start script run as npm runs it (`sh -c <scripts.start>`), without npm itself around it:
 * npm's own lines (`> social-publishing-api@0.1.0 start`, notices about the machine's npm config)
 * are not ours to keep quiet, everything after them is.
 */
const START_SCRIPT = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
const BANNER = 'Social publishing API (local stack) is running.';

/** Nothing before the banner, no warning of any kind (Node's, the AWS SDK's, oidc-provider's), the settings address once. */
function expectQuiet(output: string): void {
  expect(output.startsWith(`${BANNER}\n`), `printed before the banner:\n${output}`).toBe(true);
  expect(output).not.toMatch(/warn/i);
  expect(output.match(/Settings:/g)).toHaveLength(1);
}

async function npmStart(dir: string): Promise<Started> {
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: '0', DATA_DIR: dir };
  // As in a newcomer's shell: no switch of ours set beforehand, no Node options from the test runner.
  delete env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED;
  delete env.NODE_OPTIONS;
  const child = spawn('sh', ['-c', START_SCRIPT], {
    cwd: REPO_ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.push(child);
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const ready = await Promise.race([
    (async () => {
      while (!output.includes('Press Ctrl+C to stop.') && child.exitCode === null) await new Promise((resolve) => setTimeout(resolve, 100));
      return child.exitCode === null;
    })(),
    exited.then(() => false),
  ]);
  if (!ready) throw new Error(`npm start did not come up:\n${output}`);
  return { child, output: () => output, exited };
}

/** Processes whose command line mentions `text` (Linux /proc): the JVM is started with -dbPath <DATA_DIR>/dynamodb. */
async function processesMentioning(text: string): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = (await readFile(`/proc/${entry}/cmdline`, 'utf8')).replaceAll('\0', ' ');
      if (cmdline.includes(text)) pids.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return pids;
}

async function stopWith(run: Started, signal: NodeJS.Signals, dir: string): Promise<void> {
  const jvms = await processesMentioning(join(dir, 'dynamodb'));
  expect(jvms).toHaveLength(1);
  // The sandbox platforms run as a child process of their own, named by its record's directory.
  expect(await processesMentioning(`local/sandbox/main.ts ${join(dir, 'sandbox')}`)).toHaveLength(1);
  run.child.kill(signal);
  await run.exited;
  // Node does not order a child's 'exit' before the last data of its pipes (its children write
  // to them too): the line may still be on its way when 'exit' fires.
  await expect.poll(() => run.output(), { timeout: 5000 }).toContain(`${signal}: stopping the local stack`);
  // A JVM that was killed can linger as a zombie for a moment until it is reaped.
  await expect.poll(() => processesMentioning(join(dir, 'dynamodb')), { timeout: 10_000 }).toEqual([]);
  await expect.poll(() => processesMentioning(`local/sandbox/main.ts ${join(dir, 'sandbox')}`), { timeout: 10_000 }).toEqual([]);
  expect(existsSync(join(dir, 'stack.json'))).toBe(false);
  // Nor any warning while it ran (a listener leak shows only once the consumers poll).
  expect(run.output()).not.toMatch(/warn/i);
}

function curlOf(output: string): { key: string; url: string } {
  const match = /curl -s -H "Authorization: Bearer (\S+)" (\S+)/.exec(output);
  if (!match?.[1] || !match[2]) throw new Error(`No curl line in:\n${output}`);
  return { key: match[1], url: match[2] };
}

describe('npm start', () => {
  it('seeds a demo on first start, keeps everything across a restart and stops cleanly on SIGTERM and SIGINT', { timeout: 180_000 }, async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'npm-start-'));

    // First start: the printed curl line works as printed.
    const first = await npmStart(dataDir);
    expectQuiet(first.output());
    const { key, url } = curlOf(first.output());
    const accounts = await fetch(url, { headers: { Authorization: `Bearer ${key}` } });
    expect(accounts.status).toBe(200);
    const listed = (await accounts.json()) as { accounts: Array<{ platform: string }> };
    expect(listed.accounts.map((account) => account.platform).sort()).toEqual(['instagram', 'linkedin', 'x']);

    // Other processes find the stack through stack.json.
    const info = JSON.parse(await readFile(join(dataDir, 'stack.json'), 'utf8')) as StackInfo;
    expect(Object.keys(info).sort()).toEqual(
      ['baseUrl', 'dynamodbEndpoint', 'env', 'mediaBaseUrl', 'mediaBucket', 'queues', 's3Endpoint', 'sandboxOrigin', 'schedulerEndpoint', 'sqsEndpoint', 'region', 'tables'].sort(),
    );
    expect(info.baseUrl).toBe(url.replace(/\/accounts$/, ''));
    expect(info.env).toMatchObject({ DIRECTORY_TABLE: info.tables.directory, PUBLISH_QUEUE_URL: info.queues.publish.url, MEDIA_BASE_URL: info.mediaBaseUrl });
    // The sandbox platforms' read-only record, from their own process.
    const record = await fetch(`${info.sandboxOrigin ?? ''}/sandbox/record`);
    expect(record.status).toBe(200);
    expect(await record.json()).toEqual({ at: expect.any(String), x: { accounts: {} }, linkedin: { accounts: {} } });

    // A media file and a schedule that falls due after this stack has stopped.
    const s3 = s3ClientFor(info.s3Endpoint);
    await s3.send(new PutObjectCommand({ Bucket: info.mediaBucket, Key: 'demo/pixel.gif', Body: Buffer.from('GIF89a-bytes'), ContentType: 'image/gif' }));
    s3.destroy();
    const scheduler = new SchedulerClient({ endpoint: info.schedulerEndpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
    const dueAt = new Date(Math.ceil(Date.now() / 1000) * 1000 + 5000);
    await scheduler.send(
      new CreateScheduleCommand({
        Name: 'survives-restart',
        GroupName: 'default',
        ScheduleExpression: `at(${dueAt.toISOString().slice(0, 19)})`,
        FlexibleTimeWindow: { Mode: 'OFF' },
        ActionAfterCompletion: 'DELETE',
        // The Scheduler's dead-letter queue: nothing consumes it, so the message waits there.
        Target: { Arn: info.env.SCHEDULER_DLQ_ARN ?? '', RoleArn: info.env.SCHEDULER_ROLE_ARN ?? '', Input: '{"survived":true}' },
      }),
    );
    scheduler.destroy();
    // Wait for the media mirror to have written the file.
    await expect.poll(async () => (await readdir(join(dataDir ?? '', 'media', 'objects'))).length).toBe(1);

    await stopWith(first, 'SIGTERM', dataDir);

    // Second start: no new demo, the same data.
    const second = await npmStart(dataDir);
    expectQuiet(second.output());
    expect(second.output()).toContain('was shown at the first start');
    expect(second.output()).not.toContain(key);
    const info2 = JSON.parse(await readFile(join(dataDir, 'stack.json'), 'utf8')) as StackInfo;
    const again = await fetch(`${info2.baseUrl}/accounts`, { headers: { Authorization: `Bearer ${key}` } });
    expect(again.status).toBe(200);
    expect(((await again.json()) as { accounts: unknown[] }).accounts).toHaveLength(3);

    const media = await fetch(`${info2.mediaBaseUrl}/demo/pixel.gif`);
    expect(media.status).toBe(200);
    expect(media.headers.get('content-type')).toBe('image/gif');
    expect(await media.text()).toBe('GIF89a-bytes');

    const sqs = sqsClientFor(info2.sqsEndpoint);
    const { QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: 'scheduler-dlq' }));
    const bodies: string[] = [];
    const deadline = Date.now() + 20_000;
    while (bodies.length === 0 && Date.now() < deadline) {
      const out = await sqs.send(new ReceiveMessageCommand({ QueueUrl, WaitTimeSeconds: 1, MaxNumberOfMessages: 10 }));
      bodies.push(...(out.Messages ?? []).map((message) => message.Body ?? ''));
    }
    sqs.destroy();
    expect(bodies).toEqual(['{"survived":true}']);

    await stopWith(second, 'SIGINT', dataDir);
  });
});
