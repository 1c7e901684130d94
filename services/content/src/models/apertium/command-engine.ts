import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { EngineError, type EngineCall, type TranslationEngine } from './engine';

/** Most of stderr worth quoting in an error. */
const STDERR_LIMIT = 2000;

interface Run {
  stdout: string;
  stderr: string;
  code: number | null;
}

/**
 * Runs the command with an argument array (no shell). A child process, so long texts never block
 * the event loop; the signal kills it.
 */
function run(command: string, args: string[], signal?: AbortSignal): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], signal });
    const stdout: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < STDERR_LIMIT) stderr += chunk.toString('utf8');
    });
    child.on('error', reject);
    child.on('close', (code) =>
      resolve({
        stdout: Buffer.concat(stdout).toString('utf8'),
        stderr: stderr.slice(0, STDERR_LIMIT).trim(),
        code,
      }),
    );
  });
}

/**
 * The text goes in a private temporary file named as the `in` argument: the apertium script
 * reads /dev/stdin by path, which cannot be reopened when stdin is Node's socket pair.
 */
async function withInputFile<T>(text: string, use: (file: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(path.join(tmpdir(), 'switchyard-apertium-'));
  try {
    const file = path.join(dir, 'input');
    await writeFile(file, text, { encoding: 'utf8', mode: 0o600 });
    return await use(file);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The `apertium` command of a local installation (Debian: apt-get install apertium apertium-eng-spa ...). */
export class CommandEngine implements TranslationEngine {
  readonly location: string;

  constructor(private readonly command = 'apertium') {
    this.location = `command ${command}`;
  }

  async listModes(): Promise<string[]> {
    const { stdout, stderr, code } = await run(this.command, ['-l']);
    if (code !== 0) throw new EngineError(`${this.command} -l exited with ${code}: ${stderr}`);
    return stdout
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '');
  }

  async translate(text: string, mode: string, call: EngineCall): Promise<string> {
    // -u: unknown words are passed through as they are, without apertium's "*" marks.
    const format = call.format === 'html' ? 'html-noent' : 'txt';
    const { stdout, stderr, code } = await withInputFile(text, (file) =>
      run(this.command, ['-u', '-f', format, mode, file], call.signal),
    );
    if (code !== 0) throw new EngineError(`${this.command} ${mode} exited with ${code}: ${stderr}`);
    return stdout;
  }
}
