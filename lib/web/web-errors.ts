/** Errors a settings route throws; lib/web/web-handler.ts renders each as an HTML page with its status. */
export class WebError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'WebError';
  }
}

/** Another user's record answers exactly like one that does not exist. */
export const notFound = (what: string): WebError => new WebError(404, 'not_found', `We could not find that ${what}. It may have been removed, or it belongs to someone else.`);
export const badRequest = (message: string): WebError => new WebError(400, 'bad_request', message);
