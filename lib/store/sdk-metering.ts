/**
 * Opt-in metering of AWS SDK requests, for the benchmark (bench/run.ts) only: what one API call
 * or one publish costs in DynamoDB requests and capacity units, SQS requests and Scheduler calls.
 *
 * Off unless SDK_METERING is `1`, which only the bench's local stack sets; then each metered
 * client counts every request it sends (every attempt, retries included: each is billed), per
 * service and command, and DynamoDB requests ask for ReturnConsumedCapacity TOTAL so the units
 * DynamoDB reports are added up. Nothing here changes what a request does or what it returns.
 *
 * The counts live on globalThis, so the bench reads the same counters whichever module instance
 * of this file a handler happened to load.
 */
import type {
  DeserializeHandlerArguments,
  DeserializeHandlerOutput,
  HandlerExecutionContext,
  InitializeHandlerArguments,
  MiddlewareStack,
} from '@smithy/types';
import { ENV } from '../config.js';

export interface CommandMeter {
  /** Requests sent (every attempt). */
  requests: number;
  /** Requests that came back with an error, by error name (a failed conditional write is still billed). */
  failures: Record<string, number>;
  /** Capacity units as DynamoDB reported them (ConsumedCapacity.CapacityUnits, summed). */
  reportedCapacityUnits: number;
  /**
   * Transactions: units per table times the actions on that table. DynamoDB Local reports a
   * transaction's units per table as if it held ONE item of that table (25 posts report the same
   * as 1), so the reported figure is scaled by the number of actions on each table.
   */
  capacityUnits: number;
  /** SQS batch entries sent or deleted, messages received. */
  entries: number;
  /** DynamoDB requests by the table they touch (a request on two tables counts for each). */
  tables: Record<string, number>;
  /** `capacityUnits` by table: which table's writes a figure is made of. */
  unitsByTable: Record<string, number>;
}

export interface SdkMeter {
  commands: Record<string, CommandMeter>;
  reset(): void;
}

const METER_KEY = Symbol.for('social-publishing-api.sdk-meter');
/** Commands that accept ReturnConsumedCapacity. */
const CAPACITY_COMMANDS = new Set([
  'GetItem', 'PutItem', 'UpdateItem', 'DeleteItem', 'Query', 'Scan',
  'BatchGetItem', 'BatchWriteItem', 'TransactGetItems', 'TransactWriteItems',
]);

type GlobalWithMeter = typeof globalThis & { [METER_KEY]?: SdkMeter };

/** The counters, or null when metering is off in this process. */
export function sdkMeter(): SdkMeter | null {
  return (globalThis as GlobalWithMeter)[METER_KEY] ?? null;
}

function meter(): SdkMeter {
  const holder = globalThis as GlobalWithMeter;
  holder[METER_KEY] ??= {
    commands: {},
    reset() {
      this.commands = {};
    },
  };
  return holder[METER_KEY];
}

function commandMeter(key: string): CommandMeter {
  const commands = meter().commands;
  commands[key] ??= { requests: 0, failures: {}, reportedCapacityUnits: 0, capacityUnits: 0, entries: 0, tables: {}, unitsByTable: {} };
  return commands[key];
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** The tables a DynamoDB request touches: its TableName, its RequestItems' or its transaction's. */
function tablesOf(input: Record<string, unknown>): string[] {
  if (typeof input.TableName === 'string') return [input.TableName];
  if (input.RequestItems !== undefined) return Object.keys(record(input.RequestItems));
  return [...transactionActions(input).keys()];
}

/** Actions per table of a TransactWriteItems / TransactGetItems input. */
function transactionActions(input: Record<string, unknown>): Map<string, number> {
  const actions = new Map<string, number>();
  for (const entry of list(input.TransactItems)) {
    for (const action of Object.values(record(entry))) {
      const table = record(action).TableName;
      if (typeof table === 'string') actions.set(table, (actions.get(table) ?? 0) + 1);
    }
  }
  return actions;
}

function addCapacity(target: CommandMeter, operation: string, input: Record<string, unknown>, output: Record<string, unknown>): void {
  const consumed = output.ConsumedCapacity;
  const perTable = Array.isArray(consumed) ? consumed.map(record) : consumed === undefined ? [] : [record(consumed)];
  const actions = operation.startsWith('Transact') ? transactionActions(input) : null;
  for (const table of perTable) {
    const units = typeof table.CapacityUnits === 'number' ? table.CapacityUnits : 0;
    target.reportedCapacityUnits += units;
    const name = typeof table.TableName === 'string' ? table.TableName : '';
    const scaled = actions ? units * (actions.get(name) ?? 1) : units;
    target.capacityUnits += scaled;
    target.unitsByTable[name] = (target.unitsByTable[name] ?? 0) + scaled;
  }
}

function countEntries(target: CommandMeter, operation: string, input: Record<string, unknown>, output: Record<string, unknown>): void {
  if (operation === 'SendMessageBatch' || operation === 'DeleteMessageBatch') target.entries += list(input.Entries).length;
  else if (operation === 'SendMessage' || operation === 'DeleteMessage') target.entries += 1;
  else if (operation === 'ReceiveMessage') target.entries += list(output.Messages).length;
}

/** Meters this client when SDK_METERING=1; otherwise does nothing. Call once, where the client is built. */
export function meterSdkClient<Input extends object, Output extends object>(
  client: { middlewareStack: MiddlewareStack<Input, Output> },
  service: 'dynamodb' | 'sqs' | 'scheduler',
): void {
  if (process.env[ENV.sdkMetering] !== '1') return;
  meter();
  if (service === 'dynamodb') {
    // Before serialization, on a copy: the caller's input object is left as it was.
    client.middlewareStack.add(
      (next, context: HandlerExecutionContext) => (args: InitializeHandlerArguments<Input>) => {
        const operation = (context.commandName ?? '').replace(/Command$/, '');
        if (!CAPACITY_COMMANDS.has(operation) || 'ReturnConsumedCapacity' in args.input) return next(args);
        return next({ ...args, input: { ...args.input, ReturnConsumedCapacity: 'TOTAL' } });
      },
      { step: 'initialize', name: 'sdkMeteringCapacity', override: true },
    );
  }
  client.middlewareStack.add(
    (next, context: HandlerExecutionContext) => async (args: DeserializeHandlerArguments<Input>): Promise<DeserializeHandlerOutput<Output>> => {
      const operation = (context.commandName ?? 'Unknown').replace(/Command$/, '');
      const input = record(args.input);
      const target = commandMeter(`${service}:${operation}`);
      target.requests += 1;
      if (service === 'dynamodb') for (const table of tablesOf(input)) target.tables[table] = (target.tables[table] ?? 0) + 1;
      try {
        const result = await next(args);
        const output = record(result.output);
        if (service === 'dynamodb') addCapacity(target, operation, input, output);
        else countEntries(target, operation, input, output);
        return result;
      } catch (error) {
        const name = error instanceof Error ? error.name : 'Error';
        target.failures[name] = (target.failures[name] ?? 0) + 1;
        throw error;
      }
    },
    // Inside the retry loop (finalizeRequest) and around the deserializer: once per attempt,
    // with the parsed output.
    { step: 'deserialize', priority: 'high', name: 'sdkMeteringCount', override: true },
  );
}
