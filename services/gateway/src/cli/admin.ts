#!/usr/bin/env node
/**
 * The admin CLI: organizations and API keys through the gateway's admin HTTP API, so it works
 * the same against the embedded and the distributed mode.
 */
import { parseArgs, stringFlag, UsageError } from './args';
import { requestFor, USAGE, type AdminRequest } from './commands';

export const ExitCode = { ok: 0, refused: 1, usage: 2, unreachable: 3 } as const;

export interface CliIo {
  env: NodeJS.ProcessEnv;
  out(text: string): void;
  err(text: string): void;
}

async function send(
  baseUrl: string,
  token: string,
  request: AdminRequest,
): Promise<{ status: number; body: unknown }> {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (request.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(new URL(request.path, baseUrl), {
    method: request.method,
    headers,
    body: request.body === undefined ? undefined : JSON.stringify(request.body),
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: shown as text
  }
  return { status: response.status, body };
}

function describeError(status: number, body: unknown): string {
  const error = (body as { error?: { code?: string; message?: string } } | undefined)?.error;
  return error
    ? `error ${status} ${error.code}: ${error.message}`
    : `error ${status}: ${String(body)}`;
}

export async function runAdminCli(argv: string[], io: CliIo): Promise<number> {
  let request: AdminRequest;
  let json: boolean;
  let baseUrl: string;
  try {
    const args = parseArgs(argv);
    if (args.flags.has('help') || args.positionals.length === 0) {
      io.out(USAGE);
      return args.flags.has('help') ? ExitCode.ok : ExitCode.usage;
    }
    const words = args.positionals.slice(0, 2);
    request = requestFor(words, { ...args, positionals: args.positionals.slice(2) });
    json = args.flags.has('json');
    baseUrl = stringFlag(args, 'url') ?? io.env.GATEWAY_URL ?? 'http://localhost:8080';
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.err(`${error.message}\n\n${USAGE}`);
    return ExitCode.usage;
  }
  const token = io.env.ADMIN_TOKEN;
  if (!token) {
    io.err(
      'ADMIN_TOKEN is not set: export the gateway admin token (printed at start in embedded mode)',
    );
    return ExitCode.usage;
  }
  let reply: { status: number; body: unknown };
  try {
    reply = await send(baseUrl, token, request);
  } catch (error) {
    io.err(`cannot reach the gateway at ${baseUrl}: ${(error as Error).message}`);
    return ExitCode.unreachable;
  }
  if (reply.status >= 400) {
    io.err(describeError(reply.status, reply.body));
    if (json) io.out(JSON.stringify(reply.body, null, 2));
    return ExitCode.refused;
  }
  io.out(json ? JSON.stringify(reply.body, null, 2) : request.render(reply.body));
  return ExitCode.ok;
}

if (require.main === module) {
  const io: CliIo = {
    env: process.env,
    out: (text) => process.stdout.write(`${text}\n`),
    err: (text) => process.stderr.write(`${text}\n`),
  };
  runAdminCli(process.argv.slice(2), io).then(
    (code) => (process.exitCode = code),
    (error: unknown) => {
      process.stderr.write(`unexpected failure: ${(error as Error).message}\n`);
      process.exitCode = ExitCode.refused;
    },
  );
}
