/**
 * The one way a store reads an item: a valibot schema per record kind, parsed here. A schema names
 * the record's fields, so an attribute added to an item later (or written by hand) never leaks
 * into a record, and a field of the wrong shape stops the read with StoredItemError (a bug or a
 * hand edit, never user input) instead of travelling on as a wrong value.
 */
import * as v from 'valibot';

/** An item that does not have the shape this code writes. */
export class StoredItemError extends Error {
  readonly code = 'stored_item_malformed';
  constructor(what: string, field: string) {
    super(`${what} has a missing or malformed ${field}`);
    this.name = 'StoredItemError';
  }
}

/** Parses `item` with `schema`; `what` names the item in the error (e.g. `Directory item USER#u1/PROFILE`). */
export function readItem<TSchema extends v.GenericSchema>(schema: TSchema, item: Record<string, unknown>, what: string): v.InferOutput<TSchema> {
  const result = v.safeParse(schema, item);
  if (!result.success) throw new StoredItemError(what, v.getDotPath(result.issues[0]) ?? 'item');
  return result.output;
}

/** A string attribute that may be absent (or null): null on the record. */
export const nullableString = v.nullish(v.string(), null);

/** A list of strings that may be absent: an empty list on the record. */
export const stringList = v.optional(v.array(v.string()), () => []);
