/**
 * Text rules under hostile input (issue 10, item 1): the CPU one create spends on the per-target
 * text rules (lib/domain/target-rules.ts, X counted by lib/domain/x-text-length.ts), for
 * adversarial patterns laid out in several ways, at the 256 KiB body limit, with the most targets
 * a create takes. Budget: 50 ms of CPU per create.
 *
 * Two shapes of create per pattern and layout:
 *   shared   one `text` of ~250 KiB for 25 X targets
 *   distinct `texts` with 25 different texts of ~10 KiB each (the body limit shared between them)
 *
 * Standalone: `npx tsx bench/phases/text-rules.ts` prints a table (worst layout per pattern) and PASS/MISS.
 * As a phase of `npm run bench`: `textRulesPhase()` returns the PhaseOutcome bench/run.ts expects
 * (needs no stack: it runs the pure rules in process).
 */
import { MAX_ACCOUNTS_PER_REQUEST } from '../../lib/domain/create-request.js';
import type { Account } from '../../lib/domain/model.js';
import { evaluateTarget } from '../../lib/domain/target-rules.js';
import { MAX_BODY_BYTES } from '../../lib/http/json-body.js';
import { budget, table, type PhaseOutcome } from '../report.js';

export const TEXT_RULES_BUDGET_MS = 50;

/** Short repeating patterns: the ones that made twitter-text quadratic, and every entity kind. */
export const PATTERNS: Record<string, string> = {
  'a.': 'a.',
  'www.': 'www.',
  'ab-cd.': 'ab-cd.',
  '.a': '.a',
  '1.': '1.',
  'a_a.': 'a_a.',
  'a.a-.com (failing domain)': 'a.a.a.a.a.a.a.a.a.a.a-.com',
  'a.a.com (long valid domain)': 'a.a.a.a.a.a.a.a.a.a.a.com',
  'url http': 'https://a.co/',
  'url path a.': 'https://example.com/a.',
  'url query': 'https://example.com/?a=b&',
  'url parens': 'https://a.co/(a)',
  't.co': 'https://t.co/abc',
  'dots': '.',
  '@ run': '@',
  '# run': '#',
  'mention @a': '@a',
  'hashtag #a': '#a',
  'cashtag $A': '$A',
  emoji: '😀',
  'emoji skin tone': '👍🏽',
  'ZWJ family': '👩‍👩‍👧',
  'flag': '🇫🇷',
  'combining marks': 'e\u0301\u0302\u0303',
  'lone combining': '\u0301',
  RTL: 'مرحبا.',
  'RTL marks': '\u202ea.\u202c',
  CJK: '日本.',
  'idn bücher.de': 'bücher.de',
  'emoji + full stop': '👩‍👩‍👧.',
  'digits 1.1': '1.1',
  'dots then letter .é': '.é',
  'RTL with a TLD': 'موقع.',
  'CJK with a TLD': '中国.',
  'TLD .com.': 'com.',
  'RTL word + TLD': 'مرحبا.موقع.',
  'CJK word + TLD': '日本.中国.',
  'emoji + .com': '👩‍👩‍👧.com',
  'a-.co': 'a-.co',
};

/** How the pattern is laid out: one run with no space, or runs of a given length between spaces. */
const LAYOUTS: Record<string, number> = {
  'one run': Number.POSITIVE_INFINITY,
  'runs of 1024': 1024,
  'runs of 512': 512,
  'runs of 500': 500,
  'runs of 2240': 2240,
  'runs of 300': 300,
  'runs of 24': 24,
  'pattern + space': 0,
};

const account: Account = {
  id: 'acct_x',
  userId: 'usr_bench',
  workspaceId: 'ws_bench',
  platform: 'x',
  name: 'Bench',
  handle: 'bench',
  accountType: 'personal',
  active: true,
  tokenHealth: 'healthy',
  connectedAt: '2026-01-01T00:00:00.000Z',
  platformUserId: '1',
};

/** A text of about `bytes` UTF-8 bytes made of `pattern` laid out in runs of `run` units. */
function build(pattern: string, run: number, bytes: number, salt: string): string {
  const unit = run === 0 ? `${pattern} ` : pattern;
  const perUnit = Buffer.byteLength(unit, 'utf8');
  let text = salt + unit.repeat(Math.max(1, Math.floor(bytes / perUnit)));
  if (run > 0 && Number.isFinite(run)) {
    const pieces: string[] = [];
    for (let at = 0; at < text.length; at += run) pieces.push(text.slice(at, at + run));
    text = pieces.join(' ');
    while (Buffer.byteLength(text, 'utf8') > bytes) text = text.slice(0, Math.floor(text.length * 0.95));
  }
  return text;
}

/** CPU milliseconds (user + system) of evaluating every target of one create. */
function cpuMsOfCreate(texts: readonly string[]): number {
  const start = process.cpuUsage();
  for (const [index, text] of texts.entries()) {
    evaluateTarget({ accountId: `acct_${index}`, account, userId: account.userId, workspaceId: account.workspaceId, text, media: [] });
  }
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

export interface TextRulesFigure {
  pattern: string;
  worstMs: number;
  worstLayout: string;
  pass: boolean;
}

export function runTextRulesBench(): { budgetMs: number; figures: TextRulesFigure[]; pass: boolean } {
  // Room for the JSON around the texts (keys, quotes, account ids) within the body limit.
  const textBytes = MAX_BODY_BYTES - 8 * 1024;
  const figures: TextRulesFigure[] = [];
  for (const [name, pattern] of Object.entries(PATTERNS)) {
    let worstMs = 0;
    let worstLayout = '';
    for (const [layout, run] of Object.entries(LAYOUTS)) {
      for (const shape of ['shared', 'distinct'] as const) {
        const texts =
          shape === 'shared'
            ? Array.from({ length: MAX_ACCOUNTS_PER_REQUEST }, () => build(pattern, run, textBytes, ''))
            : Array.from({ length: MAX_ACCOUNTS_PER_REQUEST }, (_, index) =>
                build(pattern, run, Math.floor(textBytes / MAX_ACCOUNTS_PER_REQUEST), `${index} `),
              );
        // The median of three, so one scheduling hiccup on a shared machine is not the figure.
        const samples = [cpuMsOfCreate(texts), cpuMsOfCreate(texts), cpuMsOfCreate(texts)].sort((a, b) => a - b);
        const ms = samples[1] ?? 0;
        if (ms > worstMs) {
          worstMs = ms;
          worstLayout = `${layout}, ${shape}`;
        }
      }
    }
    figures.push({ pattern: name, worstMs: Math.round(worstMs * 10) / 10, worstLayout, pass: worstMs <= TEXT_RULES_BUDGET_MS });
  }
  return { budgetMs: TEXT_RULES_BUDGET_MS, figures, pass: figures.every((figure) => figure.pass) };
}

export function textRulesPhase(): Promise<PhaseOutcome> {
  const result = runTextRulesBench();
  const worst = result.figures.reduce((a, b) => (b.worstMs > a.worstMs ? b : a));
  return Promise.resolve({
    results: { textRules: result },
    budgets: [budget(`text rules per create, worst (${worst.pattern})`, worst.worstMs, result.budgetMs, 'ms CPU')],
    report: [
      `Text rules: CPU per create, ${MAX_ACCOUNTS_PER_REQUEST} X targets, ${MAX_BODY_BYTES / 1024} KiB body (worst layout per pattern)`,
      table([
        ['pattern', 'worst ms', 'layout'],
        ...result.figures.map((figure) => [figure.pattern, figure.worstMs.toFixed(1), figure.worstLayout]),
      ]),
    ],
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const result = runTextRulesBench();
  console.log(`Text rules: CPU per create with ${MAX_ACCOUNTS_PER_REQUEST} X targets at the ${MAX_BODY_BYTES / 1024} KiB body limit (budget ${result.budgetMs} ms)`);
  console.log(`${'pattern'.padEnd(30)} ${'worst ms'.padStart(9)}  verdict  worst layout`);
  for (const figure of result.figures) {
    console.log(`${figure.pattern.padEnd(30)} ${figure.worstMs.toFixed(1).padStart(9)}  ${figure.pass ? 'PASS' : 'MISS'}     ${figure.worstLayout}`);
  }
  const worst = result.figures.reduce((a, b) => (b.worstMs > a.worstMs ? b : a));
  console.log(`worst: ${worst.pattern} (${worst.worstLayout}) ${worst.worstMs} ms -> ${result.pass ? 'PASS' : 'MISS'}`);
  process.exitCode = result.pass ? 0 : 1;
}
