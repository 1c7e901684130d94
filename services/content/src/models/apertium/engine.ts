/** How the engine treats markup: `html` keeps tags and entities out of the translation. */
export type EngineFormat = 'txt' | 'html';

export interface EngineCall {
  format: EngineFormat;
  /** Aborts the translation (the child process is killed / the HTTP request dropped). */
  signal: AbortSignal;
}

/** An Apertium installation: the local command or an APY server. */
export interface TranslationEngine {
  /** Where it runs, for logs and error messages (never holds a secret). */
  readonly location: string;
  /** Installed modes, e.g. ["eng-spa", "spa-eng", "es-fr"]. */
  listModes(): Promise<string[]>;
  translate(text: string, mode: string, call: EngineCall): Promise<string>;
}

/** The engine failed on its own (not a cancellation): the message says how. */
export class EngineError extends Error {
  override readonly name = 'EngineError';
}
