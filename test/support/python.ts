import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

/** The repository root (from test/dist/support). */
export const REPO = path.resolve(__dirname, '..', '..', '..');

/** A Python with the official openai package: OPENAI_PYTHON, the venv .ci/run makes, or python3. */
export function pythonWithOpenAi(): string | undefined {
  const candidates = [
    process.env.OPENAI_PYTHON,
    path.join(REPO, '.run', 'python', 'bin', 'python'),
    'python3',
  ];
  for (const python of candidates) {
    if (!python || (python.includes('/') && !existsSync(python))) continue;
    try {
      execFileSync(python, ['-c', 'import openai'], { stdio: 'ignore' });
      return python;
    } catch {
      // not this one
    }
  }
  return undefined;
}
