import { realpathSync } from 'node:fs';
import type { Logger } from '@switchyard/shared';
import type { Llama, LlamaGpuType, LlamaModel } from 'node-llama-cpp' with {
  'resolution-mode': 'import',
};

/** node-llama-cpp's exports, loaded on first use: a registry without a GGUF never loads it. */
export type LlamaBinding = typeof import('node-llama-cpp', {
  with: { 'resolution-mode': 'import' },
});

/** Which compute backend llama.cpp uses: the CPU (false), or a GPU build found at start. */
export type GpuChoice = false | 'auto' | LlamaGpuType;

let binding: Promise<LlamaBinding> | undefined;
const runtimes = new Map<string, Promise<Llama>>();
const models = new Map<string, Promise<LlamaModel>>();

export function llamaBinding(): Promise<LlamaBinding> {
  binding ??= import('node-llama-cpp');
  return binding;
}

/** llama.cpp's own log levels, as this service's logger names them. */
const LOG_METHOD = {
  fatal: 'fatal',
  error: 'error',
  warn: 'warn',
  info: 'debug',
  log: 'debug',
  debug: 'trace',
} as const;

/**
 * One llama.cpp runtime per GPU choice for the whole process. It uses the prebuilt binaries
 * installed with node-llama-cpp and never compiles or downloads anything at start.
 */
function runtime(gpu: GpuChoice, logger: Logger): Promise<Llama> {
  const key = String(gpu);
  let loading = runtimes.get(key);
  if (!loading) {
    loading = llamaBinding().then(({ getLlama, LlamaLogLevel }) =>
      getLlama({
        gpu,
        build: 'never',
        skipDownload: true,
        progressLogs: false,
        logLevel: LlamaLogLevel.warn,
        logger: (level, message) => {
          const method = LOG_METHOD[level as keyof typeof LOG_METHOD];
          if (method) logger[method]({ component: 'llama.cpp' }, message.trim());
        },
      }),
    );
    runtimes.set(key, loading);
    loading.catch(() => runtimes.delete(key));
  }
  return loading;
}

/**
 * The GGUF at path, loaded once per process (memory-mapped): every registry entry naming the same
 * file, and every service of the embedded mesh, shares it. It stays loaded until the process exits.
 */
export function loadGguf(path: string, gpu: GpuChoice, logger: Logger): Promise<LlamaModel> {
  const key = `${realpathSync(path)}\u0000${String(gpu)}`;
  let loading = models.get(key);
  if (!loading) {
    loading = runtime(gpu, logger).then((llama) => llama.loadModel({ modelPath: path }));
    models.set(key, loading);
    loading.catch(() => models.delete(key));
  }
  return loading;
}
