import { expect } from 'chai';
import { loadGatewayConfig, startGateway } from '@switchyard/gateway';
import { silentLogger, waitFor } from '@switchyard/shared/testing';
import { api } from '../support/http';
import { E2E_ENV, mesh } from '../support/mesh';
import { parseResponses, sendRaw } from '../support/raw-http';
import { WebhookReceiver } from '../support/receiver';

/** Issue 10: each reproduction of the black-box hardening test gives the documented answer. */
function expectErrorBody(res: { body: any; headers: Headers }, code: string): void {
  expect(res.body).to.have.all.keys('error', 'request_id');
  expect(res.body.error.code).to.equal(code);
  expect(res.body.error.details).to.be.an('array');
  expect(res.body.request_id).to.equal(res.headers.get('x-request-id'));
}

describe('e2e: hardening (issue 10 reproductions)', () => {
  it('1. a 120 KB prompt of 40,000 CJK characters is refused with 413 while another call is served', async () => {
    const huge = api('/api/v2/ai/content/generate', { body: { prompt: '\u4e00'.repeat(40_000) } });
    const models = await api('/api/v2/models');
    expect(models.status).to.equal(200);
    const res = await huge;
    expect(res.status).to.equal(413);
    expectErrorBody(res, 'payload_too_large');
    expect(res.body.error.details[0].field).to.equal('/prompt');
  });

  it('3. catalog attributes nested 8,000 levels deep: 400 naming the field, nothing stored', async () => {
    const attributes = `${'{"a":'.repeat(8000)}true${'}'.repeat(8000)}`; // JSON.stringify itself fails this deep
    const rawBody = `{"items":[{"itemId":"deep-1","catalog":"ecommerce","title":"Deep","attributes":${attributes}}]}`;
    const res = await api('/api/v2/catalog/items', { rawBody });
    expect(res.status, res.text.slice(0, 300)).to.equal(400);
    expectErrorBody(res, 'invalid_request');
    expect(res.body.error.details).to.deep.equal([
      { field: '/items/0/attributes', reason: 'nested more than 32 levels deep' },
    ]);
    expect((await api('/api/v2/catalog/items/deep-1')).status).to.equal(404);
  });

  it('4. a body with 4,000 unknown fields: 400 with the first 20 details and the count of the rest', async () => {
    const body: Record<string, unknown> = { prompt: 'x' };
    for (let i = 0; i < 4000; i++) body[`f${i}`] = 1;
    const res = await api('/api/v2/ai/content/generate', { body });
    expect(res.status).to.equal(400);
    expectErrorBody(res, 'invalid_request');
    expect(res.body.error.details).to.have.length(20);
    expect(res.body.error.details[0]).to.deep.equal({
      field: '/f0',
      reason: 'is not an allowed field',
    });
    expect(res.body.error.details_omitted).to.equal(3980);
    expect(res.text.length).to.be.below(4096);
  });

  it('4. a 225 KB body with 20,000 invalid items: 400 listing its first problem, a small answer', async () => {
    const items = Array.from({ length: 20_000 }, (_, i) => ({ i }));
    const res = await api('/api/v2/catalog/items', { body: { items } });
    expect(res.status).to.equal(400);
    expectErrorBody(res, 'invalid_request');
    expect(res.body.error.details).to.have.length(1);
    expect(res.body.error.message).to.include('only its first problem is listed');
    expect(res.text.length).to.be.below(1024);
  });

  it('4. a body of 20,000 extra fields is refused by its value count before it is parsed: 413 with the error body', async () => {
    const body: Record<string, unknown> = { prompt: 'x' };
    for (let i = 0; i < 20_000; i++) body[`f${i}`] = i;
    const res = await api('/api/v2/ai/content/generate', { body });
    expect(res.status).to.equal(413);
    expectErrorBody(res, 'payload_too_large');
    expect(res.body.error.message).to.equal(
      'request body holds more than 5000 JSON values (the limit of this operation)',
    );
  });

  it('4. a legal catalog batch of 1000 items and 30,000 values is validated in slices and stored whole', async () => {
    const items = Array.from({ length: 1000 }, (_, i) => ({
      itemId: `big-batch-${i}`,
      catalog: 'ecommerce',
      title: `Big batch item ${i}`,
      categories: ['bulk'],
      attributes: { price: i, sizes: Array.from({ length: 20 }, (_, s) => 36 + s) },
    }));
    const res = await api('/api/v2/catalog/items', { body: { items } });
    expect(res.status, res.text.slice(0, 300)).to.equal(200);
    expect(res.body.upserted).to.equal(1000);
    const last = await api('/api/v2/catalog/items/big-batch-999');
    expect(last.status).to.equal(200);
    expect(last.body.attributes).to.deep.include({ price: 999 });
    expect(last.body.available).to.equal(true);
  });

  it('8. blank strings are refused, naming the field, not taken as unset', async () => {
    const cases: Array<[string, unknown, string]> = [
      ['/api/v2/ai/content/generate', { prompt: 'x', model: ' ' }, '/model'],
      ['/api/v2/ai/content/generate', { prompt: ' \n\t' }, '/prompt'],
      ['/api/v2/ai/content/transform', { action: 'summarize', text: 'a b', model: '\t' }, '/model'],
      [
        '/api/v2/ai/assistants/chat',
        { user_id: ' ', session_id: 's1', messages: [{ role: 'user', content: 'hi' }] },
        '/user_id',
      ],
    ];
    for (const [path, body, field] of cases) {
      const res = await api(path, { body });
      expect(res.status, `${path} ${JSON.stringify(body)}: ${res.text}`).to.equal(400);
      expectErrorBody(res, 'invalid_request');
      expect(res.body.error.details.map((d: { field: string }) => d.field)).to.include(field);
    }
  });

  it('6. GET /api/v2/requests/{id} says processing while the result callback fails, completed once delivered', async () => {
    // The second attempt is answered only once the request has been read while it was failing:
    // the retries are 100 ms apart, and a read after the third would find it completed.
    let release!: () => void;
    const read = new Promise<void>((resolve) => (release = resolve));
    const receiver = await new WebhookReceiver()
      .respondWith(async (_call, index) => {
        if (index === 1) await read;
        return { status: index < 2 ? 500 : 200 };
      })
      .start();
    try {
      const accepted = await api('/api/v2/ai/content/generate', {
        body: { prompt: 'A callback that fails twice', webhookUrl: receiver.url },
      });
      expect(accepted.status, accepted.text).to.equal(202);
      const path = `/api/v2/requests/${accepted.body.requestId}`;
      await waitFor(() => receiver.calls.length >= 2, 10_000);
      const failing = await api(path);
      release();
      expect(failing.body).to.include({ status: 'processing' });
      expect(failing.body).to.not.have.any.keys('result', 'usage');
      expect(failing.body.delivery).to.include({ state: 'pending' });
      const delivered = await waitFor(async () => {
        const res = await api(path);
        return res.body.status === 'completed' ? res.body : undefined;
      }, 10_000);
      expect(receiver.calls).to.have.length(3);
      expect(delivered.delivery).to.deep.equal({ state: 'delivered', attempts: 3 });
      expect(delivered.result).to.be.a('string').and.not.equal('');
    } finally {
      release();
      await receiver.stop();
    }
  });

  it('6. ... and reports the failed delivery once the callback retries are exhausted', async () => {
    const receiver = await new WebhookReceiver().respondWith(() => ({ status: 503 })).start();
    try {
      const accepted = await api('/api/v2/ai/content/generate', {
        body: { prompt: 'A callback that never succeeds', webhookUrl: receiver.url },
      });
      const path = `/api/v2/requests/${accepted.body.requestId}`;
      const done = await waitFor(async () => {
        const res = await api(path);
        return res.body.status !== 'processing' ? res.body : undefined;
      }, 10_000);
      expect(done.status).to.equal('completed');
      expect(done.delivery).to.deep.equal({ state: 'failed', attempts: receiver.calls.length });
      expect(receiver.calls.length).to.equal(4); // WEBHOOK_RETRY_SCHEDULE of the e2e mesh: 0,100ms,100ms,100ms
    } finally {
      await receiver.stop();
    }
  });

  it('5. broken chunk framing mid-body and CONNECT: the error body with a request id, at once', async () => {
    const { gatewayUrl, apiKey } = await mesh();
    const head = `POST /api/v2/ai/content/generate HTTP/1.1\r\nHost: g\r\nAuthorization: X-API-Key ${apiKey}\r\nContent-Type: application/json\r\n`;
    const cases: Array<[string, number, string]> = [
      [`${head}Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`, 400, 'invalid_request'],
      [`CONNECT 127.0.0.1:22 HTTP/1.1\r\nHost: g\r\n\r\n`, 405, 'method_not_allowed'],
    ];
    for (const [bytes, status, code] of cases) {
      const [answer] = parseResponses(await sendRaw(gatewayUrl, bytes, 5000));
      expect(answer?.status, bytes.slice(0, 30)).to.equal(status);
      expect(JSON.parse(answer!.body).error.code).to.equal(code);
      expect(JSON.parse(answer!.body).request_id)
        .to.equal(answer!.headers['x-request-id'])
        .and.match(/^req_/);
    }
  });

  it('a body shorter than its Content-Length: 408 with the error body after the request timeout, not 300 s', async function () {
    this.timeout(20_000);
    const { services, bus } = await mesh();
    const address = (name: string) => `127.0.0.1:${services.find((s) => s.name === name)!.port}`;
    // A gateway of its own with a short request timeout, in front of the shared mesh's services.
    const config = loadGatewayConfig({
      ...E2E_ENV,
      GATEWAY_HOST: '127.0.0.1',
      CONTENT_ADDR: address('content'),
      ASSISTANT_ADDR: address('assistant'),
      RECOMMENDATION_ADDR: address('recommendation'),
      NOTIFICATION_ADDR: address('notification'),
      GATEWAY_REQUEST_TIMEOUT_MS: '1500',
      GATEWAY_HEADERS_TIMEOUT_MS: '1000',
    });
    const gateway = await startGateway({ config, logger: silentLogger(), bus });
    try {
      const started = Date.now();
      const body = '{"prompt":"hello"'; // 17 bytes of the 100 announced; the rest never comes
      const bytes =
        `POST /api/v2/ai/content/generate HTTP/1.1\r\nHost: g\r\nAuthorization: X-API-Key ${config.devApiKey}\r\n` +
        `Content-Type: application/json\r\nContent-Length: 100\r\n\r\n${body}`;
      const [answer] = parseResponses(
        await sendRaw(`http://127.0.0.1:${gateway.port}`, bytes, 15_000),
      );
      const elapsed = Date.now() - started;
      expect(answer?.status).to.equal(408);
      expect(JSON.parse(answer!.body).error.code).to.equal('timeout');
      expect(JSON.parse(answer!.body).request_id)
        .to.equal(answer!.headers['x-request-id'])
        .and.match(/^req_/);
      // The request timeout plus at most one connection check (1 s), not Node's 300 s.
      expect(elapsed).to.be.within(1400, 5000);
    } finally {
      await gateway.stop();
    }
  });
});
