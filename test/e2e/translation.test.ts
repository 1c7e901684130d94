import { expect } from 'chai';
import { countTokens } from '@switchyard/shared';
import { api } from '../support/http';
import { requireApertium } from '../support/apertium';

const translate = (body: Record<string, unknown>) =>
  api('/api/v2/ai/content/transform', { body: { action: 'translate', ...body } });

/**
 * Offline translation with Apertium in the default (embedded) registry: the bundled registry lists
 * it as optional, so these run wherever the engine and the eng-spa and fr-es pairs are installed
 * (CI installs them) and are pending elsewhere.
 */
describe('e2e: offline translation (Apertium)', () => {
  before(function () {
    requireApertium(this);
  });

  it('lists the engine with exactly its installed pairs', async () => {
    const res = await api('/api/v2/models');
    const apertium = res.body.models.find((m: { id: string }) => m.id === 'apertium');
    expect(apertium).to.deep.include({
      provider: 'apertium',
      capabilities: ['translate'],
      inputPricePerMillion: 0,
      outputPricePerMillion: 0,
    });
    expect(apertium.translationPairs).to.include.members(['en-es', 'es-en', 'es-fr', 'fr-es']);
    expect(res.body.models.find((m: { id: string }) => m.id === 'builtin')).to.not.have.property(
      'translationPairs',
    );
  });

  it('translates en -> es with the exact fields, tokens counted and cost 0', async () => {
    const text = 'The cat is black and the house is big.';
    const res = await translate({ text, source_language: 'en', target_language: 'es' });
    expect(res.status).to.equal(200);
    expect(res.body).to.have.all.keys(
      'original_text',
      'translated_text',
      'translation',
      'usage',
      'request_id',
    );
    expect(res.body.original_text).to.equal(text);
    expect(res.body.translated_text).to.equal('El gato es negro y la casa es grande.');
    expect(res.body.translation).to.deep.equal({ route: ['en', 'es'], pivot_languages: [] });
    expect(res.body.usage).to.deep.equal({
      model: 'apertium',
      tokens_input: countTokens(text),
      tokens_output: countTokens(res.body.translated_text),
    });
    expect(res.body.request_id).to.equal(res.headers.get('x-request-id'));
  });

  it('translates es -> en, naming the model explicitly', async () => {
    const res = await translate({
      model: 'apertium',
      text: 'Hola mundo. El perro come pan.',
      source_language: 'es',
      target_language: 'en-US',
    });
    expect(res.status).to.equal(200);
    expect(res.body.translated_text).to.match(/^Hello World\. The dog eats bread\.$/i);
  });

  it('translates en -> fr through Spanish and says so', async () => {
    const res = await translate({
      text: 'The cat is black.',
      source_language: 'en',
      target_language: 'fr',
    });
    expect(res.status).to.equal(200);
    expect(res.body.translated_text).to.equal('Le chat est noir.');
    expect(res.body.translation).to.deep.equal({
      route: ['en', 'es', 'fr'],
      pivot_languages: ['es'],
    });
  });

  it('refuses a pair with no route with 422 unsupported listing the available pairs', async () => {
    const res = await translate({
      text: 'Good morning',
      source_language: 'en',
      target_language: 'ja',
    });
    expect(res.status).to.equal(422);
    expect(res.body.error.code).to.equal('unsupported');
    expect(res.body.error.message).to.include('en -> ja').and.include('en-es').and.include('fr-es');
  });

  it('refuses a translation without source_language (Apertium does not detect languages)', async () => {
    const res = await translate({ text: 'Good morning', target_language: 'es' });
    expect(res.status).to.equal(422);
    expect(res.body.error.details.map((d: { field: string }) => d.field)).to.include(
      '/source_language',
    );
  });

  it('keeps HTML tags and attributes through the engine', async () => {
    const text =
      '<p class="intro">The <b>red</b> house is <a href="https://example.com/a_b">big</a>.</p>\n<ul><li>I like dogs.</li></ul>';
    const res = await translate({ text, source_language: 'en', target_language: 'es' });
    expect(res.status).to.equal(200);
    const out: string = res.body.translated_text;
    const tags = (html: string) => html.match(/<[^>]+>/g);
    expect(tags(out)).to.have.members(tags(text)!);
    expect(out)
      .to.include('<a href="https://example.com/a_b">')
      .and.include('grande</a>')
      .and.include('<li>Me gustan los perros.</li>');
  });

  it('keeps Markdown structure (headings, list markers, links)', async () => {
    const text =
      '# Our house\n\n- The house is *big*.\n- See [the garden](https://example.com/garden).\n';
    const res = await translate({ text, source_language: 'en', target_language: 'es' });
    expect(res.status).to.equal(200);
    const lines: string[] = res.body.translated_text.split('\n');
    expect(lines[0]).to.match(/^# /);
    expect(lines[2]).to.match(/^- .*\*grande\*/);
    expect(lines[3]).to.include('](https://example.com/garden)');
  });

  it('translates a long text (tens of KB) completely', async function () {
    this.timeout(120_000);
    const paragraph =
      'The small dog runs in the green park every morning. The children read books in the old library. ';
    const text = Array.from({ length: 300 }, (_, i) => `${i}. ${paragraph}`).join('\n');
    expect(text.length).to.be.greaterThan(30_000);
    const res = await translate({ text, source_language: 'en', target_language: 'es' });
    expect(res.status).to.equal(200);
    const lines: string[] = res.body.translated_text.split('\n');
    expect(lines).to.have.length(300);
    expect(lines[299]).to.match(/^299\. .*perro.*biblioteca vieja\.\s*$/);
    expect(res.body.usage.tokens_input).to.equal(countTokens(text));
  });
});
