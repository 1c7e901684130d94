import { EngineError, type EngineCall, type TranslationEngine } from './engine';

interface ApyAnswer<T> {
  responseData?: T;
  responseStatus?: number;
  responseDetails?: string | null;
  message?: string;
}

/** An apertium-apy server (`apertium-apy` / `servlet.py`): GET /listPairs, POST /translate. */
export class ApyEngine implements TranslationEngine {
  readonly location: string;
  private readonly base: string;

  constructor(baseUrl: string) {
    this.base = baseUrl.replace(/\/+$/, '');
    this.location = `APY ${this.base}`;
  }

  async listModes(): Promise<string[]> {
    const pairs = await this.request<Array<{ sourceLanguage: string; targetLanguage: string }>>(
      '/listPairs',
      undefined,
      AbortSignal.timeout(10_000),
    );
    return pairs.map((p) => `${p.sourceLanguage}-${p.targetLanguage}`);
  }

  async translate(text: string, mode: string, call: EngineCall): Promise<string> {
    const [source, target] = mode.split('-');
    const form = new URLSearchParams({
      q: text,
      langpair: `${source}|${target}`,
      markUnknown: 'no',
      format: call.format,
    });
    const data = await this.request<{ translatedText?: string }>('/translate', form, call.signal);
    if (typeof data.translatedText !== 'string')
      throw new EngineError(`${this.location} answered without translatedText`);
    return data.translatedText;
  }

  private async request<T>(
    path: string,
    form: URLSearchParams | undefined,
    signal: AbortSignal,
  ): Promise<T> {
    let response: Response;
    try {
      response = await fetch(
        `${this.base}${path}`,
        form ? { method: 'POST', body: form, signal } : { signal },
      );
    } catch (error) {
      if (signal.aborted) throw error;
      throw new EngineError(`${this.location} could not be reached: ${(error as Error).message}`);
    }
    const body = (await response.json().catch(() => ({}))) as ApyAnswer<T>;
    if (!response.ok || body.responseData === undefined) {
      throw new EngineError(
        `${this.location}${path} answered ${response.status}: ${body.message ?? body.responseDetails ?? 'no responseData'}`,
      );
    }
    return body.responseData;
  }
}
