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
});
