import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { generateCase, operationsOf, type Credentials, type FuzzCase } from './cases';
import type { Components } from './values';
import { startMeshProcess } from './mesh-process';
import { Random } from './random';
import {
  breakDown,
  type Pause,
  type ProbeBreakdown,
  type ProbeTiming,
  type ServerTiming,
} from './timing';
import { pickRaw } from './raw-cases';
import { parseResponses, sendRaw } from '../support/raw-http';
import { WebhookReceiver } from '../support/receiver';

export interface FuzzOptions {
  /** HTTP requests to send (generated and raw-socket). */
  requests: number;
  /** Stop sending once this much time has passed (the CI form is bounded). */
  maxDurationMs?: number;
  seed?: number;
  concurrency?: number;
  /** /healthz must answer within this (default 100 ms). */
  healthzLimitMs?: number;
  /** No response may be larger (default 1 MiB; error bodies: 64 KiB). */
  responseCapBytes?: number;
}

export interface FuzzReport {
  seed: number;
  sent: number;
  raw: number;
  durationMs: number;
  byStatus: Record<string, number>;
  byMutation: Record<string, number>;
  /** The slowest answer per mutation (client-side time, with its request). */
  slowest: Record<string, { ms: number; what: string }>;
  /** /healthz latency as a client sees it; the server's event-loop delay (max and median of per-second maxima). */
  healthz: {
    probes: number;
    p50: number;
    p99: number;
    max: number;
    over: number;
    loopLagMaxMs: number;
    loopLagMedianMs: number;
  };
  /** Each probe over the limit, split into the server's part and the rest (server-timing.ts). */
  slowProbes: ProbeBreakdown[];
  /**
   * The server's longest event-loop stall, the most CPU its thread spent in one stall (its longest
   * synchronous stretch of work, GC included), and its GC pauses during the run.
   */
  server: {
    maxStallMs: number;
    maxStallCpuMs: number;
    maxGcPauseMs: number;
    gcPauses: number;
    heavy: ServerTiming['heavy'];
  };
  findings: string[];
}

const ERROR_CAP_BYTES = 64 * 1024;
const RAW_SHARE = 0.06;

/** Keys, tokens and secrets of the run: none may appear in the mesh's output. */
function runSecrets(seed: number): Credentials & { signingSecret: string } {
  const tag = seed.toString(36).padStart(8, '0');
  return {
    apiKey: `sk_fuzz_${tag}_0123456789abcdefghijklmnop`,
    adminToken: `adm_fuzz_${tag}_0123456789abcdef`,
    signingSecret: 'whsec_ZnV6ei1zaWduaW5nLXNlY3JldC0wMTIzNDU2Nzg5',
  };
}

function percentile(sorted: number[], p: number): number {
  return sorted.length === 0
    ? 0
    : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

function describe(c: FuzzCase): string {
  const body = c.body === undefined ? '' : ` body[${c.body.length}]=${c.body.slice(0, 120)}`;
  return `${c.method} ${c.path.slice(0, 120)} (${c.mutation})${body}`;
}

/**
 * The contract's error body: error {code, message, details[] <= 20}, request_id = X-Request-Id.
 * Under /v1/ the gateway speaks OpenAI's API, so errors take OpenAI's shape there:
 * error {message, type, param, code}, which the official SDKs parse.
 */
export function errorContractProblem(
  status: number,
  headers: { get(name: string): string | null },
  text: string,
  path = '',
): string | undefined {
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    return `${status} with a body that is not JSON: ${text.slice(0, 100)}`;
  }
  const requestId = headers.get('x-request-id');
  if (!requestId) return `${status} without X-Request-Id`;
  if (path.startsWith('/v1/')) return openAiErrorProblem(status, body, text);
  if (!body || typeof body !== 'object' || !body.error || body.request_id !== requestId)
    return `${status} body is not the error contract: ${text.slice(0, 200)}`;
  const { code, message, details } = body.error;
  if (typeof code !== 'string' || typeof message !== 'string' || !Array.isArray(details))
    return `${status} error lacks code/message/details: ${text.slice(0, 200)}`;
  if (details.length > 20) return `${status} with ${details.length} details`;
  if (/\n\s+at .+:\d+:\d+/.test(text)) return `${status} carries a stack trace`;
  return undefined;
}

function openAiErrorProblem(status: number, body: any, text: string): string | undefined {
  const error = body && typeof body === 'object' ? body.error : undefined;
  if (!error || typeof error !== 'object')
    return `${status} body is not OpenAI's error shape: ${text.slice(0, 200)}`;
  const { message, type, param, code } = error;
  const nullableString = (value: unknown) => value === null || typeof value === 'string';
  if (typeof message !== 'string' || typeof type !== 'string')
    return `${status} error lacks message/type: ${text.slice(0, 200)}`;
  if (!nullableString(param) || !nullableString(code))
    return `${status} error param/code neither string nor null: ${text.slice(0, 200)}`;
  if (/\n\s+at .+:\d+:\d+/.test(text)) return `${status} carries a stack trace`;
  return undefined;
}

async function readCapped(
  res: Response,
  cap: number,
): Promise<{ text: string; size: number; over: boolean }> {
  const reader = res.body?.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (!reader) return { text: '', size: 0, over: false };
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > cap) {
      await reader.cancel();
      return { text: '', size, over: true };
    }
    chunks.push(value);
  }
  return { text: Buffer.concat(chunks).toString('utf8'), size, over: false };
}

async function sendCase(
  baseUrl: string,
  c: FuzzCase,
  cap: number,
  findings: string[],
): Promise<number> {
  let res: Response;
  try {
    const body = c.method === 'GET' || c.method === 'HEAD' ? undefined : c.body;
    // X-Fuzz-Case names the case in the server's record of heavy stalls (server-timing.ts).
    const headers = { ...c.headers, 'x-fuzz-case': c.mutation };
    res = await fetch(baseUrl + c.path, {
      method: c.method,
      headers,
      body,
      // Longer than the gateway's own request deadline: a slow call shows as its answer (504), not as silence.
      signal: AbortSignal.timeout(45_000),
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message;
    // The gateway closes the connection after refusing a body it did not read (413): not a failure.
    if (
      !/ECONNRESET|EPIPE|UND_ERR_SOCKET|other side closed/.test(String(cause)) ||
      !c.mutation.includes('limit')
    )
      findings.push(`no answer (${cause}): ${describe(c)}`);
    return 0;
  }
  const { text, size, over } = await readCapped(res, res.status >= 400 ? ERROR_CAP_BYTES : cap);
  if (over)
    findings.push(`${res.status} answer over the size cap (${size}+ bytes): ${describe(c)}`);
  if (res.status >= 500) findings.push(`${res.status}: ${describe(c)} -> ${text.slice(0, 200)}`);
  else if (res.status >= 400 && c.method !== 'HEAD' && !over) {
    const problem = errorContractProblem(res.status, res.headers, text, c.path);
    if (problem) findings.push(`${problem}: ${describe(c)}`);
  }
  return res.status;
}

async function sendRawCase(
  baseUrl: string,
  raw: { name: string; bytes: string },
  findings: string[],
): Promise<number> {
  const answer = await sendRaw(baseUrl, raw.bytes, 1500).catch(
    (error: Error) => `error ${error.message}`,
  );
  const responses = parseResponses(answer);
  for (const response of responses) {
    if (response.status >= 500) findings.push(`raw "${raw.name}": ${response.status}`);
    else if (response.status >= 400) {
      const problem = errorContractProblem(
        response.status,
        { get: (name) => response.headers[name] ?? null },
        response.body,
      );
      if (problem) findings.push(`raw "${raw.name}": ${problem}`);
    }
  }
  return responses.at(-1)?.status ?? 0;
}

interface ProbeResult {
  probes: ProbeTiming[];
  failures: string[];
  loopLagMaxMs: number[];
  stalls: Pause[];
}

function startProbe(url: string): { stop(): Promise<ProbeResult> } {
  const worker = new Worker(path.join(__dirname, 'healthz-probe.js'), {
    workerData: { url, intervalMs: 25 },
  });
  const result = new Promise<ProbeResult>((resolve) => worker.once('message', resolve));
  return {
    stop: async () => {
      worker.postMessage('stop');
      const value = await result;
      await worker.terminate();
      return value;
    },
  };
}

function readServerTiming(file: string, findings: string[]): ServerTiming {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as ServerTiming;
  } catch {
    findings.push('the mesh wrote no timing record (it did not exit cleanly)');
    return { probes: {}, stalls: [], gcPauses: [], heavy: [] };
  }
}

/**
 * The collections path values name (fuzz-0..fuzz-4), one per kind, so knowledge imports and
 * document writes reach the assistant's parsing instead of stopping at 404.
 */
async function createFuzzCollections(baseUrl: string, apiKey: string): Promise<void> {
  const kinds = ['events', 'courses', 'articles', 'documents', 'documents'];
  for (const [i, kind] of kinds.entries()) {
    const res = await fetch(`${baseUrl}/api/v2/knowledge/collections`, {
      method: 'POST',
      headers: { authorization: `X-API-Key ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: `fuzz-${i}`, kind }),
    });
    if (res.status !== 201)
      throw new Error(`collection fuzz-${i}: ${res.status} ${await res.text()}`);
  }
}

/** Starts the mesh, fuzzes every route of its /openapi.json, and checks each answer and the log. */
export async function runFuzz(options: FuzzOptions): Promise<FuzzReport> {
  const seed = options.seed ?? Date.now() % 2 ** 31;
  const random = new Random(seed);
  const secrets = runSecrets(seed);
  const receiver = await new WebhookReceiver().start();
  const timingDir = mkdtempSync(path.join(os.tmpdir(), 'fuzz-timing-'));
  const timingFile = path.join(timingDir, 'server.json');
  const mesh = await startMeshProcess(
    {
      ...process.env,
      KAFKA_BROKERS: '',
      MONGODB_URI: '',
      REDIS_URL: '',
      GATEWAY_PORT: '0',
      LOG_LEVEL: 'debug',
      DEV_API_KEY: secrets.apiKey,
      ADMIN_TOKEN: secrets.adminToken,
      DEV_SIGNING_SECRET: secrets.signingSecret,
      DEV_MONTHLY_TOKEN_QUOTA: '1000000000000',
      DEFAULT_RPM: '100000000',
      DEFAULT_TPM: '100000000000',
      WEBHOOK_RETRY_SCHEDULE: '0',
      // The contract under hostile input, not a local model's capacity on a shared machine (its
      // handling of hostile text is in the provider contract): builtin, unless the caller chooses.
      DEFAULT_MODEL: process.env.FUZZ_MODEL ?? 'builtin',
      ASSISTANT_MODEL: process.env.FUZZ_MODEL ?? 'builtin',
      FUZZ_SERVER_TIMING_FILE: timingFile,
    },
    [path.join(__dirname, 'server-timing.js')],
  );
  const findings: string[] = [];
  const byStatus: Record<string, number> = {};
  const byMutation: Record<string, number> = {};
  const slowest: Record<string, { ms: number; what: string }> = {};
  const started = performance.now();
  let sent = 0;
  let raw = 0;
  try {
    const document = (await (await fetch(`${mesh.gatewayUrl}/openapi.json`)).json()) as {
      components: Components;
    } & Record<string, any>;
    const operations = operationsOf(document);
    await createFuzzCollections(mesh.gatewayUrl, secrets.apiKey);
    const context = { url: receiver.url };
    const probe = startProbe(mesh.gatewayUrl);
    const deadline = started + (options.maxDurationMs ?? Infinity);
    const worker = async () => {
      while (sent < options.requests && performance.now() < deadline) {
        sent++;
        let status: number;
        if (random.chance(RAW_SHARE)) {
          raw++;
          const rawCase = pickRaw(secrets, random);
          byMutation[`raw: ${rawCase.name}`] = (byMutation[`raw: ${rawCase.name}`] ?? 0) + 1;
          status = await sendRawCase(mesh.gatewayUrl, rawCase, findings);
        } else {
          const c = generateCase(
            random.pick(operations),
            document.components,
            secrets,
            random,
            context,
          );
          byMutation[c.mutation] = (byMutation[c.mutation] ?? 0) + 1;
          const start = performance.now();
          status = await sendCase(
            mesh.gatewayUrl,
            c,
            options.responseCapBytes ?? 1024 * 1024,
            findings,
          );
          const ms = performance.now() - start;
          if (ms > (slowest[c.mutation]?.ms ?? 0))
            slowest[c.mutation] = { ms, what: `${status} ${describe(c).slice(0, 160)}` };
        }
        byStatus[status] = (byStatus[status] ?? 0) + 1;
      }
    };
    await Promise.all(Array.from({ length: options.concurrency ?? 8 }, worker));
    const { probes, failures, loopLagMaxMs, stalls } = await probe.stop();
    await mesh.stop(); // writes the server's timing record
    const latencies = probes.map((p) => p.answeredAt - p.sentAt);
    const sorted = [...latencies].sort((a, b) => a - b);
    const limit = options.healthzLimitMs ?? 100;
    const over = latencies.filter((ms) => ms > limit).length;
    const server = readServerTiming(timingFile, findings);
    const slowProbes = probes
      .filter((p) => p.answeredAt - p.sentAt > limit)
      .map((p) => breakDown(p, server, stalls));
    // The server answers for its own part of a slow probe: the CPU its thread ran while the handler
    // was in progress and in the stalls of its event loop the request waited behind. The rest is
    // the machine's load (a thread waiting for a core) or the client's scheduling.
    const serverSlow = slowProbes.filter((b) => !b.reachedServer || b.serverMs > limit);
    if (serverSlow.length > 0) {
      findings.push(
        `/healthz: the server took over ${limit} ms in ${serverSlow.length} of ${latencies.length} probes (max ${Math.max(...serverSlow.map((b) => b.serverMs)).toFixed(1)} ms)`,
      );
    }
    for (const failure of failures) findings.push(`/healthz failed: ${failure}`);
    const loopLag = [...loopLagMaxMs].sort((a, b) => a - b);
    const healthz = {
      probes: latencies.length,
      p50: percentile(sorted, 50),
      p99: percentile(sorted, 99),
      max: sorted.at(-1) ?? 0,
      over,
      loopLagMaxMs: loopLag.at(-1) ?? 0,
      loopLagMedianMs: percentile(loopLag, 50),
    };
    // The run's figures start with the first probe: the mesh's start (modules, schemas) is not serving.
    const running = <P extends Pause>(pauses: P[]) =>
      pauses.filter((p) => p.at >= (probes[0]?.sentAt ?? 0));
    const longest = (pauses: Pause[], of: (p: Pause) => number = (p) => p.ms) =>
      pauses.reduce((max, p) => Math.max(max, of(p)), 0);
    const serverSummary = {
      maxStallMs: longest(running(server.stalls)),
      maxStallCpuMs: longest(running(server.stalls), (p) => p.cpuMs ?? p.ms),
      maxGcPauseMs: longest(running(server.gcPauses)),
      gcPauses: running(server.gcPauses).length,
      heavy: running(server.heavy),
    };
    const output = mesh.output();
    for (const [name, secret] of Object.entries(secrets))
      if (output.includes(secret)) findings.push(`the ${name} appears in the log`);
    if (!output.includes('"msg"'))
      findings.push('the mesh wrote no log lines: the secret check saw nothing');
    return {
      seed,
      sent,
      raw,
      durationMs: performance.now() - started,
      byStatus,
      byMutation,
      slowest,
      healthz,
      slowProbes,
      server: serverSummary,
      findings,
    };
  } finally {
    await mesh.stop();
    await receiver.stop();
    rmSync(timingDir, { recursive: true, force: true });
  }
}
