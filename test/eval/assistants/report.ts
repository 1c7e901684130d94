import { CHECK_KINDS, type CheckResult, type SuiteResult } from './suite';

/** The floors a user relies on: most checks pass, and no vendor data or escalated greeting ever. */
export const DEFAULT_MIN_SCORE = 0.95;

function table(title: string, rows: Array<[string, CheckResult[]]>): string {
  const lines = [
    `${title.padEnd(22)} ${'passed'.padStart(8)} ${'checks'.padStart(8)} ${'score'.padStart(8)}`,
  ];
  for (const [name, checks] of rows) {
    const passed = checks.filter((c) => c.passed).length;
    const score = checks.length ? `${((100 * passed) / checks.length).toFixed(1)}%` : '-';
    lines.push(
      `${name.padEnd(22)} ${String(passed).padStart(8)} ${String(checks.length).padStart(8)} ${score.padStart(8)}`,
    );
  }
  return lines.join('\n');
}

/** The share of checks passed (0 when there were none). */
export function scoreOf(result: SuiteResult): number {
  const passed = result.checks.filter((c) => c.passed).length;
  return result.checks.length ? passed / result.checks.length : 0;
}

/** Whether a run meets the floors: the score, 0 vendor-data leaks, 0 escalated greetings. */
export function meetsFloors(result: SuiteResult, minScore = DEFAULT_MIN_SCORE): boolean {
  return scoreOf(result) >= minScore && result.vendorLeaks === 0 && result.escalatedGreetings === 0;
}

/** "12/40 (30.0%)", or "-" when there was nothing to count. */
function share(part: number, whole: number): string {
  return whole === 0 ? '-' : `${part}/${whole} (${((100 * part) / whole).toFixed(1)}%)`;
}

/** The score table per agent and per check kind, the totals, and the failed checks when asked. */
export function formatReport(
  result: SuiteResult,
  run: { short: boolean; failures: boolean },
): string {
  const { checks } = result;
  const byAgent = [...new Set(checks.map((c) => c.agent))]
    .sort()
    .map((a): [string, CheckResult[]] => [a, checks.filter((c) => c.agent === a)]);
  const byKind = CHECK_KINDS.map((k): [string, CheckResult[]] => [
    k,
    checks.filter((c) => c.kind === k),
  ]);
  const passed = checks.filter((c) => c.passed).length;
  const issues = Object.entries(result.issues)
    .sort((a, b) => b[1] - a[1])
    .map(([kind, n]) => `${kind} ${n}`)
    .join(', ');
  const out = [
    `assistant evaluation: ${result.set} set, model ${result.model}${run.short ? ' (short form)' : ''}, ${result.conversations} conversations, ${result.turns} turns, ${result.seconds.toFixed(1)} s`,
    '',
    table('agent', byAgent),
    '',
    table('check kind', byKind),
    '',
    `total: ${passed}/${checks.length} checks passed (${(100 * scoreOf(result)).toFixed(1)}%); vendor-data leaks: ${result.vendorLeaks}; escalated greetings: ${result.escalatedGreetings}`,
  ];
  if (result.model !== 'builtin')
    out.push(
      `model-written replies overruled by the grounding check: ${share(result.overruled, result.modelWritten)}${issues ? ` (${issues})` : ''}`,
    );
  if (run.failures)
    out.push(
      '',
      ...checks
        .filter((c) => !c.passed)
        .map(
          (c) =>
            `FAIL ${c.conversation}#${c.turn} ${c.kind}: ${c.detail ?? ''}` +
            (c.reply === undefined
              ? ''
              : `\n     reply: ${c.reply.replace(/\s+/g, ' ').slice(0, 400)}`),
        ),
    );
  return out.join('\n');
}

/** Turns whose every check passed (a turn answered by status 200 alone is not one). */
export function turnsPassed(result: SuiteResult): number {
  const failed = new Set(
    result.checks.filter((c) => !c.passed).map((c) => `${c.conversation}#${c.turn}`),
  );
  return result.turns - failed.size;
}

/** One line per model: development and held-out scores, the overrule rate, hand-overs with their text. */
export function formatSummary(results: SuiteResult[]): string {
  const models = [...new Set(results.map((r) => r.model))];
  const score = (r: SuiteResult | undefined) =>
    r
      ? `${share(r.checks.filter((c) => c.passed).length, r.checks.length)}, turns ${turnsPassed(r)}/${r.turns}`
      : 'not run';
  const lines = [
    `${'model'.padEnd(24)} ${'development: checks, whole turns'.padEnd(38)} ${'held-out: checks, whole turns'.padEnd(38)} ${'overruled'.padEnd(18)} hand-over text and contacts`,
  ];
  for (const model of models) {
    const of = (set: string) => results.find((r) => r.model === model && r.set === set);
    const runs = results.filter((r) => r.model === model);
    const overruled =
      model === 'builtin'
        ? '-'
        : share(
            runs.reduce((n, r) => n + r.overruled, 0),
            runs.reduce((n, r) => n + r.modelWritten, 0),
          );
    const handovers = runs.flatMap((r) => r.checks.filter((c) => c.kind === 'handover'));
    lines.push(
      `${model.padEnd(24)} ${score(of('development')).padEnd(38)} ${score(of('held-out')).padEnd(38)} ${overruled.padEnd(18)} ${share(handovers.filter((c) => c.passed).length, handovers.length)}`,
    );
  }
  return lines.join('\n');
}
