/**
 * Failures of directory writes (admin CLI, demo seed, test provisioning). They are not API
 * errors: no endpoint of api-v1.md writes the directory, so they never reach an HTTP response.
 */
export type DirectoryRecordKind = 'user' | 'workspace' | 'account' | 'credentials' | 'api_key' | 'media';

/** The record a write or update names does not exist (conditional write failed on existence). */
export class DirectoryRecordNotFoundError extends Error {
  readonly code: `${DirectoryRecordKind}_not_found`;
  constructor(
    readonly kind: DirectoryRecordKind,
    readonly recordId: string,
    options: { cause?: unknown } = {},
  ) {
    super(`No ${kind.replace('_', ' ')} with id ${recordId}`, { cause: options.cause });
    this.name = 'DirectoryRecordNotFoundError';
    this.code = `${kind}_not_found`;
  }
}

/** A create would overwrite an existing record (ids are random, so this means a bug or a replay). */
export class DirectoryRecordExistsError extends Error {
  readonly code = 'record_exists';
  constructor(
    readonly kind: DirectoryRecordKind,
    readonly recordId: string,
    options: { cause?: unknown } = {},
  ) {
    super(`A ${kind.replace('_', ' ')} with id ${recordId} already exists`, { cause: options.cause });
    this.name = 'DirectoryRecordExistsError';
  }
}

/** A create would take the user past a cap (workspaces per user); checked by the write's own condition. */
export class DirectoryLimitError extends Error {
  readonly code = 'limit_reached';
  constructor(
    readonly kind: DirectoryRecordKind,
    readonly limit: number,
    options: { cause?: unknown } = {},
  ) {
    super(`At most ${limit} ${kind.replace('_', ' ')}s per user`, { cause: options.cause });
    this.name = 'DirectoryLimitError';
  }
}

/** An admin input is out of range or malformed; `param` names the offending input. */
export class ProvisioningInputError extends Error {
  readonly code = 'invalid_input';
  constructor(
    readonly param: string,
    message: string,
  ) {
    super(message);
    this.name = 'ProvisioningInputError';
  }
}
