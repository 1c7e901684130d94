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

/** The score table per agent and per check kind, the totals, and the failed checks when asked. */
export function formatReport(
  result: SuiteResult,
  run: { model: string; short: boolean; seconds: number; failures: boolean },
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
  const out = [
    `assistant evaluation: model ${run.model}${run.short ? ' (short form)' : ''}, ${result.conversations} conversations, ${result.turns} turns, ${run.seconds.toFixed(1)} s`,
    '',
    table('agent', byAgent),
    '',
    table('check kind', byKind),
    '',
    `total: ${passed}/${checks.length} checks passed (${(100 * scoreOf(result)).toFixed(1)}%); vendor-data leaks: ${result.vendorLeaks}; escalated greetings: ${result.escalatedGreetings}`,
  ];
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
