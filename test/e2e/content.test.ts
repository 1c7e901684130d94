import { expect } from 'chai';
import { countTokens } from '@switchyard/shared';
import { api } from '../support/http';

const ARTICLE = [
  'Switchyard routes every AI request through one gateway.',
  'The gateway checks the API key, validates the body and forwards the call to the right service over gRPC.',
  'Content generation, transformation, assistants and recommendations each run as an independent service.',
  'Usage events flow through the event bus into the notification service.',
  'The notification service signs every webhook with the organization secret.',
  'Receivers verify the signature before they trust a payload.',
  'Retries use the same webhook id, so receivers can drop duplicates.',
  'Platform teams deploy the mesh on Kubernetes with Kafka, MongoDB and Redis.',
].join(' ');

describe('e2e: content', () => {
  it('generates content with the exact response fields and a request id equal to X-Request-Id', async () => {
    const res = await api('/api/v2/ai/content/generate', {
      body: {
        prompt: 'Write a product description for waterproof trail running shoes',
        tone: 'persuasive',
        language: 'en',
        max_length: 120,
      },
    });
    expect(res.status).to.equal(200);
    expect(res.body).to.have.all.keys('content', 'usage', 'request_id');
    expect(res.body.content).to.be.a('string').and.not.empty;
    expect(res.body.usage).to.have.all.keys('model', 'tokens_input', 'tokens_output', 'cost');
    expect(res.body.usage.model).to.equal('builtin');
    expect(res.body.usage.tokens_output).to.equal(countTokens(res.body.content));
    expect(res.body.usage.tokens_output).to.be.at.most(120);
    expect(res.body.usage.tokens_input).to.be.greaterThan(0);
    expect(res.body.usage.cost).to.be.a('number');
    expect(res.body.request_id).to.match(/^req_/).and.equal(res.headers.get('x-request-id'));
  });

  it('honours max_length in tokens and changes wording with tone and language', async () => {
    const short = await api('/api/v2/ai/content/generate', {
      body: { prompt: 'Announce our spring sale on hiking boots', max_length: 15 },
    });
    expect(short.status).to.equal(200);
    expect(countTokens(short.body.content)).to.be.at.most(15);

    const formal = await api('/api/v2/ai/content/generate', {
      body: { prompt: 'Announce our spring sale on hiking boots', tone: 'formal' },
    });
    const playful = await api('/api/v2/ai/content/generate', {
      body: { prompt: 'Announce our spring sale on hiking boots', tone: 'playful' },
    });
    const french = await api('/api/v2/ai/content/generate', {
      body: { prompt: 'Announce our spring sale on hiking boots', language: 'fr' },
    });
    expect(formal.body.content).to.not.equal(playful.body.content);
    expect(french.body.content).to.not.equal(formal.body.content);
  });

  it('answers the alias path without the version segment', async () => {
    const res = await api('/api/ai/content/generate', {
      body: { prompt: 'A tagline for a coffee shop' },
    });
    expect(res.status).to.equal(200);
    expect(res.body.content).to.be.a('string').and.not.empty;
  });

  it('summarizes extractively, honouring target_length', async () => {
    const short = await api('/api/v2/ai/content/transform', {
      body: { action: 'summarize', text: ARTICLE, target_length: 'short' },
    });
    const long = await api('/api/v2/ai/content/transform', {
      body: { action: 'summarize', text: ARTICLE, target_length: 'long' },
    });
    expect(short.status).to.equal(200);
    expect(short.body).to.have.all.keys(
      'original_length',
      'transformed_text',
      'usage',
      'request_id',
    );
    expect(short.body.original_length).to.equal(ARTICLE.length);
    expect(short.body.usage).to.have.all.keys('model', 'tokens_input', 'tokens_output');
    expect(short.body.transformed_text.length).to.be.lessThan(long.body.transformed_text.length);
    expect(long.body.transformed_text.length).to.be.lessThan(ARTICLE.length);
    for (const sentence of short.body.transformed_text.split(/(?<=\.)\s+/))
      expect(ARTICLE).to.include(sentence);
  });

  it('reformats, reporting the detected original format', async () => {
    const res = await api('/api/v2/ai/content/transform', {
      body: {
        action: 'reformat',
        text: '- first point\n- second point\n- third point',
        format: 'paragraph',
      },
    });
    expect(res.status).to.equal(200);
    expect(res.body).to.have.all.keys('original_format', 'transformed_text', 'usage', 'request_id');
    expect(res.body.original_format).to.equal('bullet_list');
    expect(res.body.transformed_text.toLowerCase()).to.include('second point');
    expect(res.body.transformed_text).to.not.match(/^- /m);

    const csv = await api('/api/v2/ai/content/transform', {
      body: { action: 'reformat', text: 'name,age\nAda,36\nAlan,41', format: 'json' },
    });
    expect(csv.status).to.equal(200);
    expect(csv.body.original_format).to.equal('csv');
    const rows = JSON.parse(csv.body.transformed_text) as Array<{ name: string; age: unknown }>;
    expect(rows.map((r) => r.name)).to.deep.equal(['Ada', 'Alan']);
    expect(String(rows[1]!.age)).to.equal('41');
  });

  it('refuses a translation no configured model can do with 422 unsupported, never a fake translation', async () => {
    // Japanese: neither the builtin engine nor the Apertium pairs CI installs (translation.test.ts) have it.
    const res = await api('/api/v2/ai/content/transform', {
      body: {
        action: 'translate',
        text: 'Good morning',
        source_language: 'en',
        target_language: 'ja',
      },
    });
    expect(res.status).to.equal(422);
    expect(res.body.error.code).to.equal('unsupported');
    expect(res.body.error.message).to.match(/en.*ja/);
    expect(res.body.request_id).to.equal(res.headers.get('x-request-id'));
  });

  it('lists the models a caller can use', async () => {
    const res = await api('/api/v2/models');
    expect(res.status).to.equal(200);
    expect(res.body.models.map((m: { id: string }) => m.id)).to.include('builtin');
  });

  it('rejects an unknown model with 400 naming the field', async () => {
    const res = await api('/api/v2/ai/content/generate', {
      body: { prompt: 'x', model: 'no-such-model' },
    });
    expect(res.status).to.equal(400);
    expect(res.body.error.details.map((d: { field: string }) => d.field)).to.include('/model');
    expect(res.body.error.message).to.include('builtin');
  });
});
