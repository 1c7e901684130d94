import { spawn, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';

export interface MeshProcess {
  gatewayUrl: string;
  /** Everything the mesh wrote to stdout and stderr: its log, as production would write it. */
  output(): string;
  stop(): Promise<void>;
}

const ENTRY = path.resolve(
  __dirname,
  '..',
  '..',
  '..',
  'deploy',
  'embedded',
  'dist',
  'src',
  'index.js',
);

/** The embedded mesh in its own process (`npm start`), so the fuzz client's work does not slow the server it measures. */
export function startMeshProcess(
  env: NodeJS.ProcessEnv,
  preload: string[] = [],
): Promise<MeshProcess> {
  const args = [...preload.flatMap((module) => ['--require', module]), ENTRY];
  const child: ChildProcess = spawn(process.execPath, args, {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const chunks: string[] = [];
  child.stdout!.on('data', (chunk: Buffer) => chunks.push(chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => chunks.push(chunk.toString('utf8')));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the mesh did not start:\n${chunks.join('').slice(-2000)}`)),
      60_000,
    );
    const poll = setInterval(() => {
      const match = /running \(embedded mode\) at (http:\/\/\S+)/.exec(chunks.join(''));
      if (!match) return;
      clearInterval(poll);
      clearTimeout(timer);
      resolve({
        gatewayUrl: match[1]!.replace('localhost', '127.0.0.1'),
        output: () => chunks.join(''),
        stop: async () => {
          child.kill('SIGTERM');
          const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
          await exited;
          clearTimeout(killer);
        },
      });
    }, 50);
    child.once('exit', (code) => {
      clearInterval(poll);
      clearTimeout(timer);
      reject(new Error(`the mesh exited (${code}):\n${chunks.join('').slice(-2000)}`));
    });
  });
}
