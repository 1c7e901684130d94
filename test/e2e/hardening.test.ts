import { expect } from 'chai';
import { api } from '../support/http';

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
    expect(res.body.error.details).to.deep.equal([{ field: '/items/0/attributes', reason: 'nested more than 32 levels deep' }]);
    expect((await api('/api/v2/catalog/items/deep-1')).status).to.equal(404);
  });

  it('4. a body with 20,000 unknown fields: 400 with the first 20 details and the count of the rest', async () => {
    const body: Record<string, unknown> = { prompt: 'x' };
    for (let i = 0; i < 20_000; i++) body[`f${i}`] = 1;
    const res = await api('/api/v2/ai/content/generate', { body });
    expect(res.status).to.equal(400);
    expectErrorBody(res, 'invalid_request');
    expect(res.body.error.details).to.have.length(20);
    expect(res.body.error.details[0]).to.deep.equal({ field: '/f0', reason: 'is not an allowed field' });
    expect(res.body.error.details_omitted).to.equal(19_980);
    expect(res.text.length).to.be.below(4096);
  });
});
