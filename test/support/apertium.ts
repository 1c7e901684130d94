import { spawnSync } from 'node:child_process';

/** Whether the local `apertium` command runs (CI installs it; a developer machine may not have it). */
export function apertiumInstalled(): boolean {
  const probe = spawnSync('apertium', ['-l'], { encoding: 'utf8' });
  return probe.status === 0 && probe.stdout.trim() !== '';
}

const ABSENT =
  'pending: the apertium command is not installed (apt-get install apertium apertium-eng-spa apertium-fr-es)';

/** From a suite's before hook: marks its tests pending, each saying why, when the engine is absent. */
export function requireApertium(context: Mocha.Context): void {
  if (apertiumInstalled()) return;
  for (const test of context.test!.parent!.tests) test.title += ` (${ABSENT})`;
  context.skip();
}
