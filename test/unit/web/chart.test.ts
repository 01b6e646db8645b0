/** The settings charts (lib/web/chart.ts): inline SVG with its figures in a hidden table, escaped, never NaN, never styled inline. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chart, formatFigure, niceMaximum, type ChartInput } from '../../../lib/web/chart.js';

function draw(points: ChartInput['points'], kind: ChartInput['kind'] = 'bar', title = 'Impressions by day'): string {
  return chart({ title, valueName: 'Impressions', kind, points }).value;
}

describe('chart', () => {
  it('says there are no figures yet when no point has a value, and draws no svg', () => {
    expect(draw([])).toContain('no figures yet');
    expect(draw([])).not.toContain('<svg');
    expect(draw([{ label: '05-01', value: null }])).not.toContain('<svg');
  });

  it('draws one point as a named picture with a hidden table of its figure', () => {
    const out = draw([{ label: '05-01', value: 42 }], 'line');
    expect(out).toContain('role="img"');
    expect(out).toMatch(/<svg viewBox="0 0 \d+ \d+" width="100%"/);
    expect(out).toMatch(/<title>Impressions by day: 1 point, highest 42 impressions\.<\/title>/);
    expect(out).toContain('<div class="visually-hidden"><table>');
    expect(out).toContain('<th scope="row">05-01</th><td>42</td>');
    expect(out.match(/<circle /g)).toHaveLength(1);
  });

  it('draws many points, one bar each for a known value, and at most four x labels', () => {
    const points = Array.from({ length: 90 }, (_, index) => ({ label: `d${index}`, value: index % 3 === 0 ? null : index * 7 }));
    const out = draw(points);
    expect(out.match(/<rect /g)).toHaveLength(60);
    expect(out.match(/<tr><th scope="row">/g)).toHaveLength(90);
    expect((out.match(/text-anchor="middle"/g) ?? []).length).toBeLessThanOrEqual(4);
  });

  it('keeps huge and zero values inside the plot, with shortened axis figures', () => {
    const out = draw([{ label: 'a', value: 0 }, { label: 'b', value: 9_876_543_210 }, { label: 'c', value: 0 }]);
    expect(out).not.toMatch(/NaN|Infinity/);
    expect(out).toContain('>10B<');
    expect(out).toContain('<td>9.9B</td>');
    const ys = [...out.matchAll(/<rect [^>]*y="([\d.]+)"[^>]*height="([\d.]+)"/g)].map((match) => [Number(match[1]), Number(match[2])]);
    for (const [y, height] of ys) expect((y ?? 0) + (height ?? 0)).toBeLessThanOrEqual(200);
    // All zero: a flat chart on a top of 1, not a division by zero.
    expect(draw([{ label: 'a', value: 0 }])).not.toMatch(/NaN|Infinity/);
  });

  it('escapes labels and titles, so data never becomes markup', () => {
    const out = draw([{ label: '<script>alert(1)</script>', value: 3 }], 'line', 'A "title" & <b>');
    expect(out).not.toContain('<script>');
    expect(out).toContain('&lt;script&gt;');
    expect(out).toContain('aria-label="A &quot;title&quot; &amp; &lt;b&gt;');
  });

  it('never uses a style attribute (the settings CSP refuses inline style)', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ label: fc.string(), value: fc.option(fc.double({ noNaN: false }), { nil: null }) }), { maxLength: 40 }), fc.constantFrom('bar' as const, 'line' as const), (points, kind) => {
        const out = draw(points, kind);
        expect(out).not.toMatch(/\sstyle=/);
        expect(out).not.toMatch(/="[^"]*NaN/);
      }),
    );
  });
});

describe('figures on the axis', () => {
  it('rounds the axis top to 1, 2 or 5 times a power of ten', () => {
    expect(niceMaximum(0)).toBe(1);
    expect(niceMaximum(7)).toBe(10);
    expect(niceMaximum(130)).toBe(200);
    expect(niceMaximum(400)).toBe(500);
    expect(formatFigure(null)).toBe('–');
    expect(formatFigure(1234)).toBe('1,234');
    expect(formatFigure(25_000)).toBe('25k');
  });
});
