import { spawnSync } from 'node:child_process';

/** Whether the local `apertium` command runs (CI installs it; a developer machine may not have it). */
export function apertiumInstalled(): boolean {
  const probe = spawnSync('apertium', ['-l'], { encoding: 'utf8' });
  return probe.status === 0 && probe.stdout.trim() !== '';
}

/** Skips the suite (mocha pending, with the reason) when the engine is absent. */
export function requireApertium(context: Mocha.Context): void {
  if (!apertiumInstalled()) {
    context.test!.title += ' (skipped: the apertium command is not installed; apt-get install apertium apertium-eng-spa apertium-fr-es)';
    context.skip();
  }
}
