/**
 * The one way the settings pages build HTML: a tagged template whose every interpolation is
 * escaped unless it is already `Html` (the result of another `html` template or of `raw`, which
 * only this folder's static markup uses). A value from a user, a platform or the database can
 * therefore never become markup: forgetting to escape is not possible, only choosing `raw` is.
 *
 * Arrays interpolate item by item (each escaped the same way); null, undefined and false render
 * nothing, so `${cond && html`...`}` works.
 */
export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

type Interpolation = Html | string | number | boolean | null | undefined | readonly Interpolation[];

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '`': '&#96;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`]/g, (character) => ESCAPES[character] ?? character);
}

function render(value: Interpolation): string {
  if (value instanceof Html) return value.value;
  if (value === null || value === undefined || value === false) return '';
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: Interpolation[]): Html {
  let out = strings[0] ?? '';
  values.forEach((value, index) => {
    out += render(value) + (strings[index + 1] ?? '');
  });
  return new Html(out);
}

/** Markup written in this repository's templates (never data). */
export function raw(markup: string): Html {
  return new Html(markup);
}
