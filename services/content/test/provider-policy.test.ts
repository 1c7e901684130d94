import { expect } from 'chai';
import {
  backoffMs,
  BACKOFF_BASE_MS,
  isRetryableStatus,
  retryAfterMs,
  RETRY_AFTER_CAP_MS,
} from '../src/models/openai/retry-policy';
import { BUILTIN_MODEL_INFO } from '../src/models/builtin/builtin-model';
import { costOf } from '../src/models/text-model';
import { Semaphore } from '../src/models/semaphore';
import { usageOf } from '../src/models/usage';
import { wordDeltas } from '../src/models/routing';

describe('provider retry policy, usage and cost', () => {
  it('retries 429, 5xx and connection errors only', () => {
    expect([429, 500, 503, undefined].map(isRetryableStatus)).to.deep.equal([
      true,
      true,
      true,
      true,
    ]);
    expect([400, 401, 404, 422].map(isRetryableStatus)).to.deep.equal([false, false, false, false]);
  });

  it('backs off exponentially with full jitter', () => {
    expect(backoffMs(0, () => 0)).to.equal(0);
    expect(backoffMs(0, () => 0.999)).to.be.below(BACKOFF_BASE_MS);
    expect(backoffMs(3, () => 0.5)).to.equal(BACKOFF_BASE_MS * 4);
    expect(backoffMs(30, () => 0.999)).to.be.below(8_000);
  });

  it('reads Retry-After in seconds or as an HTTP date, capped', () => {
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(retryAfterMs(new Headers({ 'retry-after': '2' }), now)).to.equal(2000);
    expect(
      retryAfterMs(new Headers({ 'retry-after': 'Wed, 01 Jan 2025 00:00:03 GMT' }), now),
    ).to.equal(3000);
    expect(retryAfterMs(new Headers({ 'retry-after': '3600' }), now)).to.equal(RETRY_AFTER_CAP_MS);
    expect(retryAfterMs(new Headers({ 'retry-after-ms': '150' }), now)).to.equal(150);
    expect(retryAfterMs(new Headers({ 'retry-after': 'soon' }), now)).to.equal(undefined);
    expect(retryAfterMs(undefined, now)).to.equal(undefined);
  });

  it('prices input and output separately, rounded to 1e-8, never 0 for spent tokens on a priced model', () => {
    const priced = {
      ...BUILTIN_MODEL_INFO,
      inputPricePerMillion: 0.15,
      outputPricePerMillion: 0.6,
    };
    expect(costOf(priced, 1000, 500)).to.equal(0.00045);
    expect(costOf(priced, 1, 1)).to.equal(7.5e-7);
    expect(
      costOf({ ...priced, inputPricePerMillion: 0.001, outputPricePerMillion: 0.001 }, 1, 1),
    ).to.equal(1e-8);
    expect(costOf(BUILTIN_MODEL_INFO, 1000, 1000)).to.equal(0);
  });

  it('uses reported usage, else the tokenizer; existing output never counts 0', () => {
    const messages = [{ role: 'user' as const, content: 'Hello there' }];
    expect(usageOf(messages, 'Hi!', { prompt_tokens: 7, completion_tokens: 3 })).to.include({
      tokensInput: 7,
      tokensOutput: 3,
    });
    expect(usageOf(messages, 'Hi!', undefined).tokensOutput).to.be.greaterThan(0);
    expect(
      usageOf(messages, 'Hi!', { prompt_tokens: 7, completion_tokens: 0 }).tokensOutput,
    ).to.be.greaterThan(0);
  });

  it('semaphore hands slots over in FIFO order and times out waiters at their deadline', async () => {
    const semaphore = new Semaphore(1, 'm');
    const release = await semaphore.acquire();
    const order: number[] = [];
    const second = semaphore.acquire().then((r) => (order.push(2), r));
    const late = semaphore.acquire(Date.now() + 30).catch((e: Error & { code?: string }) => e.code);
    expect(await late).to.equal('timeout');
    release();
    (await second)();
    expect(order).to.deep.equal([2]);
  });

  it('splits text into word-sized deltas that join back to the text', () => {
    const text = '**Title**: one two,  three.\nFour';
    expect(wordDeltas(text).join('')).to.equal(text);
    expect(wordDeltas(text)).to.have.length(5);
  });
});
