/**
 * Charts for the settings pages, drawn on the server as inline SVG (docs/metrics.md): the settings
 * Content-Security-Policy allows no inline script and no inline style (style-src 'self'), so a
 * chart is markup coloured by presentation attributes (fill, stroke), which that policy does not
 * govern. It reads without JavaScript, scales to the column by its viewBox (width 100%), and
 * carries its figures twice: a `role="img"` picture with a title for a glance, and a visually
 * hidden table with every figure for a screen reader (in a hidden div: a table box ignores a
 * 1px width and would widen the page at phone width). Pure functions: data in, `Html` out, every
 * label escaped by the `html` template.
 */
import { html, type Html } from './html.js';

export interface ChartPoint {
  /** The point's label on the x axis and in the table (a date, a time). */
  label: string;
  /** null when the figure is not known (not collected, not given by the platform). */
  value: number | null;
}

export interface ChartInput {
  /** What the chart shows, read out as the picture's name and shown as the table's caption. */
  title: string;
  /** The figure's name, the table's second column ("Impressions"). */
  valueName: string;
  points: readonly ChartPoint[];
  /** Bars for counts per period (a day's posts), a line for one figure over time (a post's history). */
  kind: 'bar' | 'line';
}

// Narrow, so its 12-unit text stays readable when a phone's column shrinks it (the CSS caps its width on a desktop).
const WIDTH = 360;
const HEIGHT = 200;
const LEFT = 44;
const RIGHT = 12;
const TOP = 12;
const BOTTOM = 28;
const PLOT_WIDTH = WIDTH - LEFT - RIGHT;
const PLOT_HEIGHT = HEIGHT - TOP - BOTTOM;
const INK = '#1f2933';
const GRID = '#d3d8de';
const SERIES = '#1d4ed8';

/** A figure as the axis and the table write it: whole numbers with thousands separators, big ones shortened. */
export function formatFigure(value: number | null): string {
  if (value === null || !Number.isFinite(value)) return '–';
  const magnitude = Math.abs(value);
  if (magnitude >= 1e9) return `${trim(value / 1e9)}B`;
  if (magnitude >= 1e6) return `${trim(value / 1e6)}M`;
  if (magnitude >= 1e4) return `${trim(value / 1e3)}k`;
  return Math.round(value).toLocaleString('en-US');
}

function trim(value: number): string {
  return (Math.round(value * 10) / 10).toString();
}

/** A round top for the y axis at or above the largest value: 1, 2 or 5 times a power of ten. */
export function niceMaximum(largest: number): number {
  if (!(largest > 0) || !Number.isFinite(largest)) return 1;
  const power = 10 ** Math.floor(Math.log10(largest));
  for (const step of [1, 2, 5, 10]) if (step * power >= largest && Number.isFinite(step * power)) return step * power;
  // Near the largest double a rounder top would overflow to Infinity: the value itself is the top.
  return largest;
}

function coordinate(value: number): string {
  return (Math.round(value * 10) / 10).toString();
}

export function chart(input: ChartInput): Html {
  const known = input.points.map((point) => point.value).filter((value): value is number => value !== null && Number.isFinite(value));
  const table = html`<div class="visually-hidden"><table><caption>${input.title}</caption><thead><tr><th scope="col">When</th><th scope="col">${input.valueName}</th></tr></thead><tbody>${input.points.map(
    (point) => html`<tr><th scope="row">${point.label}</th><td>${formatFigure(point.value)}</td></tr>`,
  )}</tbody></table></div>`;
  if (known.length === 0) {
    return html`<figure class="chart"><p class="chart-empty">${input.title}: no figures yet.</p></figure>`;
  }
  const top = niceMaximum(Math.max(0, ...known));
  const count = input.points.length;
  const y = (value: number): number => TOP + PLOT_HEIGHT - (Math.max(0, value) / top) * PLOT_HEIGHT;
  const slot = PLOT_WIDTH / count;
  const x = (index: number): number => LEFT + slot * index + slot / 2;
  const grid = [0, 0.5, 1].map((share) => {
    const at = coordinate(y(top * share));
    return html`<line x1="${LEFT}" x2="${WIDTH - RIGHT}" y1="${at}" y2="${at}" stroke="${GRID}" stroke-width="1"/><text x="${LEFT - 6}" y="${at}" text-anchor="end" dominant-baseline="middle" font-size="12" fill="${INK}">${formatFigure(top * share)}</text>`;
  });
  // At most four x labels (a time is eleven characters), so they never overlap at any width (the viewBox scales them together).
  const every = Math.max(1, Math.ceil(count / 4));
  const labels = input.points.map((point, index) =>
    index % every === 0
      ? html`<text x="${coordinate(x(index))}" y="${HEIGHT - BOTTOM + 17}" text-anchor="middle" font-size="12" fill="${INK}">${point.label}</text>`
      : '',
  );
  let series: Html;
  if (input.kind === 'bar') {
    const barWidth = coordinate(Math.max(1, slot * 0.7));
    series = html`${input.points.map((point, index) =>
      point.value === null || !Number.isFinite(point.value)
        ? ''
        : html`<rect x="${coordinate(x(index) - Math.max(1, slot * 0.7) / 2)}" y="${coordinate(y(point.value))}" width="${barWidth}" height="${coordinate(TOP + PLOT_HEIGHT - y(point.value))}" fill="${SERIES}"/>`,
    )}`;
  } else {
    const drawn = input.points.flatMap((point, index) => (point.value === null || !Number.isFinite(point.value) ? [] : [`${coordinate(x(index))},${coordinate(y(point.value))}`]));
    series = html`<polyline points="${drawn.join(' ')}" fill="none" stroke="${SERIES}" stroke-width="2"/>${input.points.map((point, index) =>
      point.value === null || !Number.isFinite(point.value) ? '' : html`<circle cx="${coordinate(x(index))}" cy="${coordinate(y(point.value))}" r="3.5" fill="${SERIES}"/>`,
    )}`;
  }
  const summary = `${input.title}: ${count} ${count === 1 ? 'point' : 'points'}, highest ${formatFigure(Math.max(...known))} ${input.valueName.toLowerCase()}.`;
  return html`<figure class="chart"><svg viewBox="0 0 ${WIDTH} ${HEIGHT}" width="100%" preserveAspectRatio="xMidYMid meet" role="img" aria-label="${summary}" xmlns="http://www.w3.org/2000/svg"><title>${summary}</title>${grid}${series}${labels}</svg>${table}</figure>`;
}
