/**
 * How the pages write times and numbers. Every time on every page goes through formatTime: the
 * person's wall clock in their time zone (the request's, set by lib/web/web-handler.ts), with the
 * exact UTC instant in `datetime` and on hover. Nothing reads the machine's TZ.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { DEFAULT_TIME_ZONE, localTime } from '../../domain/local-time.js';
import { html, type Html } from '../html.js';

const requestZone = new AsyncLocalStorage<string>();

/** Runs a page's route with the person's zone, so each time it renders reads in it (UTC outside one). */
export function inTimeZone<T>(timeZone: string, run: () => T): T {
  return requestZone.run(timeZone, run);
}

/** The zone the page being rendered shows its times in. */
export function pageTimeZone(): string {
  return requestZone.getStore() ?? DEFAULT_TIME_ZONE;
}

/** An instant as a `<time>`: the local wall clock with its offset, the UTC instant on hover. */
export function timeElement(instantMs: number, timeZone: string = pageTimeZone(), text?: string): Html {
  const time = localTime(instantMs, timeZone);
  return html`<time datetime="${time.utc}" title="${time.utcLabel}">${text ?? time.label}</time>`;
}

export function formatTime(iso: string | null | undefined): Html | string {
  if (!iso) return '—';
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return '—';
  return timeElement(ms);
}

export function formatCount(value: number): string {
  return value.toLocaleString('en-US');
}
