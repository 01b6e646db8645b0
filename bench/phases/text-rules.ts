/**
 * Text rules under hostile input (issue 10, item 1): the CPU one create spends on the per-target
 * text rules (lib/domain/target-rules.ts, X counted by lib/domain/x-text-length.ts), for
 * adversarial patterns laid out in several ways, at the 256 KiB body limit, with the most targets
 * a create takes.
 *
 * Budget (issue 30): a ratio to a floor, twitter-text's own parse (`parseTweet`, the count X's
 * rules are defined by) of the same texts, measured right after on the same machine: for each
 * pattern, its worst create's rules CPU over the CPU parseTweet takes on that create's texts (each
 * distinct text once, as a caller counting them would). The rules must not cost much more than
 * the library whose count they give. parseTweet is quadratic on some of these texts (the reason
 * lib/domain/x-text-length.ts does not simply call it), so each floor runs in a worker thread cut
 * off after PARSE_CAP_MS: a floor that hit the cap is at least that, and its ratio at most
 * rules / cap. The budget holds the worst ratio over the patterns whose rules take at least
 * MIN_RULES_MS (below that, both sides are a few hundred microseconds of timer noise), and the old
 * absolute figure (the worst create's CPU, formerly held to 50 ms) is printed beside it.
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
import { Worker } from 'node:worker_threads';
import { createRequire } from 'node:module';
import { BUDGETS, FORMER_LIMITS, ratioBudget, table, type PhaseOutcome } from '../report.js';

/** A floor's parse is cut off here (parseTweet is quadratic on some texts): the floor is then at least this. */
const PARSE_CAP_MS = 1_000;
/** Patterns whose worst create takes less CPU than this are printed, not budgeted (timer noise). */
const MIN_RULES_MS = 2;

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
  /** twitter-text's parseTweet of the worst create's texts (each distinct text once), CPU ms. */
  parseMs: number;
  /** The parse was cut off at PARSE_CAP_MS: parseMs is a lower bound. */
  parseCapped: boolean;
  ratio: number;
}

/** CPU ms of parseTweet over `texts` in a worker thread, cut off at PARSE_CAP_MS. */
function parseCpuMs(texts: readonly string[]): Promise<{ ms: number; capped: boolean }> {
  const parser = createRequire(import.meta.url).resolve('twitter-text/dist/parseTweet.js');
  // The worker's only work is the parse; this thread waits, so the process's CPU over the parse is the parse's.
  const code = `
    const { parentPort, workerData } = require('node:worker_threads');
    const mod = require(workerData.parser);
    const parseTweet = mod.default ?? mod;
    parseTweet('warm up a.com');
    const start = process.cpuUsage();
    for (const text of workerData.texts) parseTweet(text);
    const used = process.cpuUsage(start);
    parentPort.postMessage((used.user + used.system) / 1000);
  `;
  return new Promise((resolve, reject) => {
    const worker = new Worker(code, { eval: true, workerData: { parser, texts } });
    const timer = setTimeout(() => {
      void worker.terminate();
      resolve({ ms: PARSE_CAP_MS, capped: true });
    }, PARSE_CAP_MS);
    worker.once('message', (ms: number) => {
      clearTimeout(timer);
      void worker.terminate();
      resolve({ ms, capped: false });
    });
    worker.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}

function textsOf(pattern: string, run: number, shape: 'shared' | 'distinct', textBytes: number): string[] {
  return shape === 'shared'
    ? Array.from({ length: MAX_ACCOUNTS_PER_REQUEST }, () => build(pattern, run, textBytes, ''))
    : Array.from({ length: MAX_ACCOUNTS_PER_REQUEST }, (_, index) => build(pattern, run, Math.floor(textBytes / MAX_ACCOUNTS_PER_REQUEST), `${index} `));
}

export async function runTextRulesBench(): Promise<{ figures: TextRulesFigure[]; worst: TextRulesFigure; worstRatio: TextRulesFigure }> {
  // Room for the JSON around the texts (keys, quotes, account ids) within the body limit.
  const textBytes = MAX_BODY_BYTES - 8 * 1024;
  const figures: TextRulesFigure[] = [];
  for (const [name, pattern] of Object.entries(PATTERNS)) {
    let worstMs = 0;
    let worstLayout = '';
    let worstCase: { run: number; shape: 'shared' | 'distinct' } = { run: 0, shape: 'distinct' };
    for (const [layout, run] of Object.entries(LAYOUTS)) {
      for (const shape of ['shared', 'distinct'] as const) {
        const texts = textsOf(pattern, run, shape, textBytes);
        // The median of three, so one scheduling hiccup on a shared machine is not the figure.
        const samples = [cpuMsOfCreate(texts), cpuMsOfCreate(texts), cpuMsOfCreate(texts)].sort((a, b) => a - b);
        const ms = samples[1] ?? 0;
        if (ms > worstMs) {
          worstMs = ms;
          worstLayout = `${layout}, ${shape}`;
          worstCase = { run, shape };
        }
      }
    }
    // The floor right after, on the very texts of the worst create (median of three too, unless cut off).
    const distinct = [...new Set(textsOf(pattern, worstCase.run, worstCase.shape, textBytes))];
    const parses: { ms: number; capped: boolean }[] = [];
    for (let sample = 0; sample < 3; sample++) {
      const parse = await parseCpuMs(distinct);
      parses.push(parse);
      if (parse.capped) break;
    }
    const capped = parses.some((parse) => parse.capped);
    const parseMs = capped ? PARSE_CAP_MS : [...parses].sort((a, b) => a.ms - b.ms)[1]!.ms;
    figures.push({ pattern: name, worstMs: Math.round(worstMs * 10) / 10, worstLayout, parseMs: Math.round(parseMs * 10) / 10, parseCapped: capped, ratio: worstMs / parseMs });
  }
  const worst = figures.reduce((a, b) => (b.worstMs > a.worstMs ? b : a));
  const budgeted = figures.filter((figure) => figure.worstMs >= MIN_RULES_MS);
  const worstRatio = (budgeted.length > 0 ? budgeted : figures).reduce((a, b) => (b.ratio > a.ratio ? b : a));
  return { figures, worst, worstRatio };
}

export async function textRulesPhase(): Promise<PhaseOutcome> {
  const result = await runTextRulesBench();
  const { worst, worstRatio } = result;
  return {
    results: { textRules: result },
    budgets: [
      ratioBudget(`text rules / twitter-text parse, worst ratio (${worstRatio.pattern})`, worstRatio.worstMs, worstRatio.parseMs, BUDGETS.textRulesRatio, 'ms CPU'),
      ratioBudget(`text rules / twitter-text parse, worst create (${worst.pattern})`, worst.worstMs, worst.parseMs, BUDGETS.textRulesRatio, 'ms CPU', FORMER_LIMITS.textRulesMs),
    ],
    report: [
      `Text rules: CPU per create, ${MAX_ACCOUNTS_PER_REQUEST} X targets, ${MAX_BODY_BYTES / 1024} KiB body (worst layout per pattern), and twitter-text's parseTweet of the same texts (floor; cut off at ${PARSE_CAP_MS} ms)`,
      table([
        ['pattern', 'rules ms', 'parse ms', 'ratio', 'layout'],
        ...result.figures.map((figure) => [figure.pattern, figure.worstMs.toFixed(1), `${figure.parseCapped ? '>=' : ''}${figure.parseMs.toFixed(1)}`, `${figure.ratio.toFixed(2)}x${figure.worstMs < MIN_RULES_MS ? ' (not budgeted)' : ''}`, figure.worstLayout]),
      ]),
      '',
    ],
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const outcome = await textRulesPhase();
  console.log(outcome.report.join('\n'));
  for (const entry of outcome.budgets) console.log(`${entry.name}: ${entry.measured} / ${entry.floor} = ${entry.ratio}x (limit ${entry.limit}x) ${entry.pass ? 'PASS' : 'MISS'}`);
  process.exitCode = outcome.budgets.every((entry) => entry.pass) ? 0 : 1;
}
