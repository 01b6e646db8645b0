/**
 * EventBridge Scheduler has no emulator, so this is a small HTTP server that speaks the part of
 * the Scheduler REST API the service uses: CreateSchedule, GetSchedule and DeleteSchedule of
 * one-time `at(...)` schedules whose target is an SQS queue. The handlers use the real
 * `@aws-sdk/client-scheduler`, pointed here by AWS_ENDPOINT_URL_SCHEDULER, so what they send is
 * exactly what they would send to AWS, and the answers (including errors, which the SDK reads from
 * the `x-amzn-errortype` header) are shaped the way AWS shapes them.
 *
 * Schedules are kept in a JSON file; each fires at its second by sending Target.Input to the queue
 * named by Target.Arn, and is then deleted when ActionAfterCompletion is DELETE. A schedule whose
 * time passed while the stack was down fires as soon as the stand-in starts again.
 *
 * Not emulated (ValidationException or ignored, never silently faked): rate()/cron() expressions,
 * targets other than SQS queues, UpdateSchedule, schedule groups other than the configured ones.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { GetQueueUrlCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { listenOnLoopback } from './free-port.js';
import { LOCAL_ACCOUNT_ID, LOCAL_REGION } from './local-aws.js';
import { sqsClientFor } from './messaging.js';
import { offsetAt } from '../lib/domain/queue.js';

export interface ScheduleTarget {
  Arn: string;
  RoleArn: string;
  Input?: string;
  DeadLetterConfig?: { Arn?: string };
  RetryPolicy?: { MaximumEventAgeInSeconds?: number; MaximumRetryAttempts?: number };
  SqsParameters?: { MessageGroupId?: string };
}

/** A schedule as kept on disk and returned by GetSchedule. Dates are epoch seconds, as the REST API sends them. */
export interface StoredSchedule {
  Arn: string;
  Name: string;
  GroupName: string;
  ScheduleExpression: string;
  ScheduleExpressionTimezone?: string;
  State: 'ENABLED' | 'DISABLED';
  Description?: string;
  StartDate?: number;
  EndDate?: number;
  KmsKeyArn?: string;
  FlexibleTimeWindow: { Mode: 'OFF' | 'FLEXIBLE'; MaximumWindowInMinutes?: number };
  Target: ScheduleTarget;
  ActionAfterCompletion: 'NONE' | 'DELETE';
  CreationDate: number;
  LastModificationDate: number;
  /** Internal: when it fires (epoch ms), the client token that created it, and whether it has run. */
  fireAt: number;
  clientToken?: string;
  completed?: boolean;
}

export interface SchedulerStandInOptions {
  /** Where schedules are kept; null keeps them in memory only. */
  stateFile: string | null;
  /** fauxqs SQS endpoint, to deliver to target queues. */
  sqsEndpoint: string;
  /** Schedule groups that exist (AWS always has `default`). */
  groups?: string[];
  port?: number;
  log?: (message: string, error?: unknown) => void;
}

export interface SchedulerStandIn {
  endpoint: string;
  /** Schedules currently kept, in creation order (for tests and diagnostics). */
  list(): StoredSchedule[];
  stop(): Promise<void>;
}

class SchedulerApiError extends Error {
  constructor(
    readonly status: number,
    readonly type: 'ValidationException' | 'ConflictException' | 'ResourceNotFoundException' | 'InternalServerException',
    message: string,
  ) {
    super(message);
    this.name = 'SchedulerApiError';
  }
}

const NAME_PATTERN = /^[0-9a-zA-Z\-_.]{1,64}$/;
const AT_PATTERN = /^at\((\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})\)$/;
/** setTimeout's ceiling (about 24.8 days); later schedules re-arm when it expires. */
const MAX_TIMER_MS = 2 ** 31 - 1;
const DEFAULT_MAX_RETRY_ATTEMPTS = 185;
const DEFAULT_MAX_EVENT_AGE_SECONDS = 86_400;

/** The instant of an `at(...)` expression read as wall-clock time in `timeZone` (UTC when absent). */
export function parseAtExpression(expression: string, timeZone: string | undefined): number {
  const match = AT_PATTERN.exec(expression);
  if (!match) {
    throw new SchedulerApiError(
      400,
      'ValidationException',
      `Invalid Schedule Expression ${expression}. The local Scheduler stand-in supports one-time at(yyyy-mm-ddThh:mm:ss) schedules only.`,
    );
  }
  const [year, month, day, hour, minute, second] = match.slice(1).map(Number) as [number, number, number, number, number, number];
  const wallClock = Date.UTC(year, month - 1, day, hour, minute, second);
  const check = new Date(wallClock);
  if (check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day || hour > 23 || minute > 59 || second > 59) {
    throw new SchedulerApiError(400, 'ValidationException', `Invalid Schedule Expression ${expression}.`);
  }
  const zone = timeZone ?? 'UTC';
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
  } catch {
    throw new SchedulerApiError(400, 'ValidationException', `Invalid ScheduleExpressionTimezone ${zone}.`);
  }
  // Two passes settle the offset around a daylight-saving change.
  let instant = wallClock - offsetAt(wallClock, zone);
  instant = wallClock - offsetAt(instant, zone);
  return instant;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function optionalString(body: Record<string, unknown>, field: string): string | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new SchedulerApiError(400, 'ValidationException', `${field} must be a string.`);
  return value;
}

function validateTarget(value: unknown): ScheduleTarget {
  if (!isObject(value)) throw new SchedulerApiError(400, 'ValidationException', 'Target is required.');
  const arn = optionalString(value, 'Arn');
  const roleArn = optionalString(value, 'RoleArn');
  if (!arn) throw new SchedulerApiError(400, 'ValidationException', 'Target.Arn is required.');
  if (!roleArn) throw new SchedulerApiError(400, 'ValidationException', 'Target.RoleArn is required.');
  const input = optionalString(value, 'Input');
  if (input === undefined) {
    throw new SchedulerApiError(400, 'ValidationException', 'The local Scheduler stand-in needs Target.Input (it does not emulate the default notification).');
  }
  const target: ScheduleTarget = { Arn: arn, RoleArn: roleArn, Input: input };
  if (isObject(value.DeadLetterConfig)) {
    const dlqArn = optionalString(value.DeadLetterConfig, 'Arn');
    target.DeadLetterConfig = dlqArn === undefined ? {} : { Arn: dlqArn };
  }
  if (isObject(value.RetryPolicy)) {
    const policy = value.RetryPolicy;
    const attempts = policy.MaximumRetryAttempts;
    const age = policy.MaximumEventAgeInSeconds;
    if (attempts !== undefined && (typeof attempts !== 'number' || attempts < 0 || attempts > 185)) {
      throw new SchedulerApiError(400, 'ValidationException', 'RetryPolicy.MaximumRetryAttempts must be between 0 and 185.');
    }
    if (age !== undefined && (typeof age !== 'number' || age < 60 || age > 86_400)) {
      throw new SchedulerApiError(400, 'ValidationException', 'RetryPolicy.MaximumEventAgeInSeconds must be between 60 and 86400.');
    }
    target.RetryPolicy = {
      ...(attempts === undefined ? {} : { MaximumRetryAttempts: attempts }),
      ...(age === undefined ? {} : { MaximumEventAgeInSeconds: age }),
    };
  }
  if (isObject(value.SqsParameters)) {
    const groupId = optionalString(value.SqsParameters, 'MessageGroupId');
    target.SqsParameters = groupId === undefined ? {} : { MessageGroupId: groupId };
  }
  return target;
}

function epochSeconds(value: unknown, field: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number') throw new SchedulerApiError(400, 'ValidationException', `${field} must be a timestamp.`);
  return value;
}

class Scheduler {
  private readonly schedules = new Map<string, StoredSchedule>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly queueUrls = new Map<string, Promise<string>>();
  private readonly groups: Set<string>;
  private readonly sqs: SQSClient;
  private stopped = false;
  private writeChain: Promise<void> = Promise.resolve();
  private queuedWrite: Promise<void> | null = null;

  constructor(private readonly options: SchedulerStandInOptions) {
    this.groups = new Set(options.groups ?? ['default']);
    this.sqs = sqsClientFor(options.sqsEndpoint);
  }

  private log(message: string, error?: unknown): void {
    (this.options.log ?? ((text: string, cause?: unknown) => console.error(`[scheduler] ${text}`, cause ?? '')))(message, error);
  }

  private static key(group: string, name: string): string {
    return `${group}/${name}`;
  }

  async load(): Promise<void> {
    const file = this.options.stateFile;
    if (file === null) return;
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    const saved = JSON.parse(text) as { schedules?: StoredSchedule[] };
    for (const schedule of saved.schedules ?? []) {
      this.schedules.set(Scheduler.key(schedule.GroupName, schedule.Name), schedule);
      this.arm(schedule);
    }
  }

  list(): StoredSchedule[] {
    return [...this.schedules.values()].map((schedule) => structuredClone(schedule));
  }

  /**
   * Saves the whole set. Calls made while a write is running share the next write (which
   * snapshots the state when it starts), so 500 creations at once cost a few writes, not 500,
   * and every caller still learns only after its own change is on disk.
   */
  private persist(): Promise<void> {
    const file = this.options.stateFile;
    if (file === null) return Promise.resolve();
    if (this.queuedWrite) return this.queuedWrite;
    const write = this.writeChain.then(async () => {
      this.queuedWrite = null;
      const snapshot = JSON.stringify({ schedules: [...this.schedules.values()] }, null, 1);
      await mkdir(dirname(file), { recursive: true });
      await writeFile(`${file}.tmp`, snapshot);
      await rename(`${file}.tmp`, file);
    });
    this.queuedWrite = write;
    this.writeChain = write.catch((error: unknown) => this.log('could not save schedules', error));
    return write;
  }

  async create(name: string, body: Record<string, unknown>): Promise<{ ScheduleArn: string }> {
    if (!NAME_PATTERN.test(name)) throw new SchedulerApiError(400, 'ValidationException', `Invalid schedule name ${name}.`);
    const group = optionalString(body, 'GroupName') ?? 'default';
    if (!this.groups.has(group)) throw new SchedulerApiError(404, 'ResourceNotFoundException', `Schedule group ${group} does not exist.`);
    const clientToken = optionalString(body, 'ClientToken');
    const key = Scheduler.key(group, name);
    const existing = this.schedules.get(key);
    if (existing) {
      // The SDK resends the same client token when it retries, and AWS treats that as the same request.
      if (clientToken !== undefined && existing.clientToken === clientToken) return { ScheduleArn: existing.Arn };
      throw new SchedulerApiError(409, 'ConflictException', `Schedule ${name} already exists.`);
    }
    const expression = optionalString(body, 'ScheduleExpression');
    if (!expression) throw new SchedulerApiError(400, 'ValidationException', 'ScheduleExpression is required.');
    const timeZone = optionalString(body, 'ScheduleExpressionTimezone');
    const fireAt = parseAtExpression(expression, timeZone);
    const window = body.FlexibleTimeWindow;
    if (!isObject(window) || (window.Mode !== 'OFF' && window.Mode !== 'FLEXIBLE')) {
      throw new SchedulerApiError(400, 'ValidationException', 'FlexibleTimeWindow.Mode must be OFF or FLEXIBLE.');
    }
    const maxWindow = window.MaximumWindowInMinutes;
    if (window.Mode === 'FLEXIBLE' && (typeof maxWindow !== 'number' || maxWindow < 1 || maxWindow > 1440)) {
      throw new SchedulerApiError(400, 'ValidationException', 'FlexibleTimeWindow.MaximumWindowInMinutes must be between 1 and 1440.');
    }
    const state = optionalString(body, 'State') ?? 'ENABLED';
    if (state !== 'ENABLED' && state !== 'DISABLED') throw new SchedulerApiError(400, 'ValidationException', 'State must be ENABLED or DISABLED.');
    const after = optionalString(body, 'ActionAfterCompletion') ?? 'NONE';
    if (after !== 'NONE' && after !== 'DELETE') {
      throw new SchedulerApiError(400, 'ValidationException', 'ActionAfterCompletion must be NONE or DELETE.');
    }
    const now = Math.floor(Date.now() / 1000);
    const description = optionalString(body, 'Description');
    const kmsKeyArn = optionalString(body, 'KmsKeyArn');
    const startDate = epochSeconds(body.StartDate, 'StartDate');
    const endDate = epochSeconds(body.EndDate, 'EndDate');
    const schedule: StoredSchedule = {
      Arn: `arn:aws:scheduler:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:schedule/${group}/${name}`,
      Name: name,
      GroupName: group,
      ScheduleExpression: expression,
      ...(timeZone === undefined ? {} : { ScheduleExpressionTimezone: timeZone }),
      State: state,
      ...(description === undefined ? {} : { Description: description }),
      ...(kmsKeyArn === undefined ? {} : { KmsKeyArn: kmsKeyArn }),
      ...(startDate === undefined ? {} : { StartDate: startDate }),
      ...(endDate === undefined ? {} : { EndDate: endDate }),
      FlexibleTimeWindow: window.Mode === 'OFF' ? { Mode: 'OFF' } : { Mode: 'FLEXIBLE', MaximumWindowInMinutes: maxWindow as number },
      Target: validateTarget(body.Target),
      ActionAfterCompletion: after,
      CreationDate: now,
      LastModificationDate: now,
      fireAt,
      ...(clientToken === undefined ? {} : { clientToken }),
    };
    this.schedules.set(key, schedule);
    await this.persist();
    this.arm(schedule);
    return { ScheduleArn: schedule.Arn };
  }

  get(name: string, group: string): Omit<StoredSchedule, 'fireAt' | 'clientToken' | 'completed'> {
    const schedule = this.schedules.get(Scheduler.key(group, name));
    if (!schedule) throw new SchedulerApiError(404, 'ResourceNotFoundException', `Schedule ${name} does not exist.`);
    const { fireAt: _fireAt, clientToken: _clientToken, completed: _completed, ...visible } = schedule;
    return visible;
  }

  async delete(name: string, group: string): Promise<Record<string, never>> {
    const key = Scheduler.key(group, name);
    if (!this.schedules.has(key)) throw new SchedulerApiError(404, 'ResourceNotFoundException', `Schedule ${name} does not exist.`);
    this.forget(key);
    await this.persist();
    return {};
  }

  private forget(key: string): void {
    this.schedules.delete(key);
    const timer = this.timers.get(key);
    if (timer) clearTimeout(timer);
    this.timers.delete(key);
  }

  private arm(schedule: StoredSchedule): void {
    if (this.stopped || schedule.completed || schedule.State !== 'ENABLED') return;
    const key = Scheduler.key(schedule.GroupName, schedule.Name);
    const previous = this.timers.get(key);
    if (previous) clearTimeout(previous);
    const delay = Math.max(0, schedule.fireAt - Date.now());
    const timer = setTimeout(
      () => {
        this.timers.delete(key);
        // Timers may wake a moment early, and long delays are split at setTimeout's ceiling.
        if (Date.now() < schedule.fireAt) return this.arm(schedule);
        this.track(this.fire(key, schedule, 0));
      },
      Math.min(delay, MAX_TIMER_MS),
    );
    // The stand-in must never be what keeps a finished test process alive.
    timer.unref();
    this.timers.set(key, timer);
  }

  private track(work: Promise<void>): void {
    this.inFlight.add(work);
    void work.finally(() => this.inFlight.delete(work));
  }

  private queueUrl(arn: string): Promise<string> {
    let url = this.queueUrls.get(arn);
    if (!url) {
      // arn:aws:sqs:<region>:<account>:<name>
      const parts = arn.split(':');
      if (parts.length !== 6 || parts[2] !== 'sqs') {
        return Promise.reject(new Error(`Target ${arn} is not an SQS queue; the local stand-in delivers to SQS only`));
      }
      url = this.sqs
        .send(new GetQueueUrlCommand({ QueueName: parts[5], QueueOwnerAWSAccountId: parts[4] }))
        .then((out) => {
          if (!out.QueueUrl) throw new Error(`No queue for ${arn}`);
          return out.QueueUrl;
        });
      url.catch(() => this.queueUrls.delete(arn));
      this.queueUrls.set(arn, url);
    }
    return url;
  }

  private async send(arn: string, body: string, groupId: string | undefined): Promise<void> {
    await this.sqs.send(
      new SendMessageCommand({
        QueueUrl: await this.queueUrl(arn),
        MessageBody: body,
        ...(groupId === undefined ? {} : { MessageGroupId: groupId }),
      }),
    );
  }

  private async fire(key: string, schedule: StoredSchedule, attempt: number): Promise<void> {
    if (this.stopped || this.schedules.get(key) !== schedule) return;
    const target = schedule.Target;
    try {
      await this.send(target.Arn, target.Input ?? '', target.SqsParameters?.MessageGroupId);
    } catch (error) {
      const maxAttempts = target.RetryPolicy?.MaximumRetryAttempts ?? DEFAULT_MAX_RETRY_ATTEMPTS;
      const maxAgeMs = (target.RetryPolicy?.MaximumEventAgeInSeconds ?? DEFAULT_MAX_EVENT_AGE_SECONDS) * 1000;
      const backoffMs = Math.min(60_000, 1000 * 2 ** attempt);
      if (attempt < maxAttempts && Date.now() + backoffMs - schedule.fireAt <= maxAgeMs) {
        this.log(`delivery of ${key} failed (attempt ${attempt + 1}), retrying in ${backoffMs} ms`, error);
        const retry = setTimeout(() => this.track(this.fire(key, schedule, attempt + 1)), backoffMs);
        retry.unref();
        this.timers.set(key, retry);
        return;
      }
      this.log(`delivery of ${key} failed for good`, error);
      await this.deadLetter(schedule, error, attempt + 1);
    }
    if (this.schedules.get(key) !== schedule) return;
    if (schedule.ActionAfterCompletion === 'DELETE') this.forget(key);
    else schedule.completed = true;
    await this.persist();
  }

  private async deadLetter(schedule: StoredSchedule, error: unknown, attempts: number): Promise<void> {
    const dlqArn = schedule.Target.DeadLetterConfig?.Arn;
    if (!dlqArn) return;
    try {
      const url = await this.queueUrl(dlqArn);
      await this.sqs.send(
        new SendMessageCommand({
          QueueUrl: url,
          MessageBody: schedule.Target.Input ?? '',
          // The attributes AWS puts on a dead-lettered Scheduler event.
          MessageAttributes: {
            'X-Amz-Scheduler-Schedule-Arn': { DataType: 'String', StringValue: schedule.Arn },
            'X-Amz-Scheduler-Attempt': { DataType: 'Number', StringValue: String(attempts) },
            ERROR_MESSAGE: { DataType: 'String', StringValue: error instanceof Error ? error.message : String(error) },
          },
        }),
      );
    } catch (dlqError) {
      this.log(`could not dead-letter ${schedule.Arn}`, dlqError);
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    await Promise.allSettled([...this.inFlight]);
    await this.writeChain;
    this.sqs.destroy();
  }
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolvePromise(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

function reply(response: ServerResponse, status: number, body: unknown, errorType?: string): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    'x-amzn-requestid': randomUUID(),
    ...(errorType === undefined ? {} : { 'x-amzn-errortype': errorType }),
  });
  response.end(text);
}

async function route(scheduler: Scheduler, request: IncomingMessage): Promise<unknown> {
  const url = new URL(request.url ?? '/', 'http://scheduler.local');
  const match = /^\/schedules\/([^/]+)$/.exec(url.pathname);
  if (!match?.[1]) throw new SchedulerApiError(404, 'ResourceNotFoundException', `Unknown operation ${request.method} ${url.pathname}`);
  const name = decodeURIComponent(match[1]);
  const group = url.searchParams.get('groupName') ?? 'default';
  switch (request.method) {
    case 'POST': {
      const text = await readBody(request);
      let body: unknown;
      try {
        body = text === '' ? {} : JSON.parse(text);
      } catch {
        throw new SchedulerApiError(400, 'ValidationException', 'Request body is not valid JSON.');
      }
      if (!isObject(body)) throw new SchedulerApiError(400, 'ValidationException', 'Request body must be a JSON object.');
      return scheduler.create(name, body);
    }
    case 'GET':
      return scheduler.get(name, group);
    case 'DELETE':
      return scheduler.delete(name, group);
    default:
      throw new SchedulerApiError(400, 'ValidationException', `The local Scheduler stand-in does not support ${request.method} ${url.pathname}.`);
  }
}

export async function startSchedulerStandIn(options: SchedulerStandInOptions): Promise<SchedulerStandIn> {
  const scheduler = new Scheduler(options);
  await scheduler.load();
  const server: Server = createServer((request, response) => {
    route(scheduler, request).then(
      (body) => reply(response, 200, body),
      (error: unknown) => {
        if (error instanceof SchedulerApiError) return reply(response, error.status, { Message: error.message }, error.type);
        console.error('[scheduler] internal error', error);
        reply(response, 500, { Message: 'Internal error' }, 'InternalServerException');
      },
    );
  });
  const port = await listenOnLoopback(server, options.port);
  let stopping: Promise<void> | undefined;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    list: () => scheduler.list(),
    stop: () => {
      stopping ??= (async () => {
        await new Promise<void>((resolvePromise) => {
          server.close(() => resolvePromise());
          server.closeAllConnections();
        });
        await scheduler.stop();
      })();
      return stopping;
    },
  };
}
