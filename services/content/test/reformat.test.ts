import { expect } from 'chai';
import { AppError } from '@switchyard/shared';
import { reformat } from '../src/models/builtin/reformat';

describe('reformat conversions', () => {
  it('paragraph -> bullet_list makes one "- " item per sentence', () => {
    const { text, originalFormat } = reformat(
      'We shipped the app. Users love it! Sales doubled in May.',
      'bullet_list',
    );
    expect(originalFormat).to.equal('paragraph');
    expect(text).to.equal('- We shipped the app.\n- Users love it!\n- Sales doubled in May.');
  });

  it('paragraph -> numbered_list numbers the sentences', () => {
    expect(reformat('We shipped the app. Users love it.', 'numbered_list').text).to.equal(
      '1. We shipped the app.\n2. Users love it.',
    );
  });

  it('csv -> json gives an array of objects keyed by the header (quoted fields, numbers)', () => {
    const { text, originalFormat } = reformat(
      'name,age,quote\nAda,36,"Hello, world"\nAlan,41,"He said ""hi"""',
      'json',
    );
    expect(originalFormat).to.equal('csv');
    expect(JSON.parse(text)).to.deep.equal([
      { name: 'Ada', age: 36, quote: 'Hello, world' },
      { name: 'Alan', age: 41, quote: 'He said "hi"' },
    ]);
  });

  it('json array of objects -> csv with the union of keys and quoting', () => {
    const { text } = reformat(
      '[{"name":"Ada","city":"London, UK"},{"name":"Alan","age":41}]',
      'csv',
    );
    expect(text).to.equal('name,city,age\nAda,"London, UK",\nAlan,,41');
  });

  it('html -> plain strips tags, drops scripts and decodes entities', () => {
    const html =
      '<h1>Fish &amp; Chips</h1><script>alert(1)</script><p>Caf&eacute; &lt;open&gt;&nbsp;daily &#8212; <em>fresh</em>.</p><ul><li>cod</li><li>haddock</li></ul>';
    const { text, originalFormat } = reformat(html, 'plain');
    expect(originalFormat).to.equal('html');
    expect(text).to.equal('Fish & Chips\n\nCafé <open> daily — fresh.\n\ncod\nhaddock');
  });

  it('bullet_list -> paragraph joins the items into sentences', () => {
    const { text } = reformat('- fast shipping\n- free returns\n- friendly support', 'paragraph');
    expect(text).to.equal('Fast shipping. Free returns. Friendly support.');
  });

  it('markdown -> html converts headings, emphasis, links, lists and paragraphs', () => {
    const md =
      '## Plans\n\nPick **Pro** or *Basic*, see [pricing](https://x.test/p).\n\n1. Sign up\n2. Pay\n\n- cancel any time';
    expect(reformat(md, 'html').text).to.equal(
      '<h2>Plans</h2>\n<p>Pick <strong>Pro</strong> or <em>Basic</em>, see <a href="https://x.test/p">pricing</a>.</p>\n' +
        '<ol>\n  <li>Sign up</li>\n  <li>Pay</li>\n</ol>\n<ul>\n  <li>cancel any time</li>\n</ul>',
    );
  });

  it('html -> markdown keeps structure and emphasis', () => {
    const { text } = reformat(
      '<h2>Tips</h2><p>Use <b>bold</b> <a href="https://a.test">links</a>.</p><ol><li>one</li><li>two</li></ol>',
      'markdown',
    );
    expect(text).to.equal('## Tips\n\nUse **bold** [links](https://a.test).\n\n1. one\n2. two');
  });

  it('html table -> csv', () => {
    const html =
      '<table><tr><th>sku</th><th>qty</th></tr><tr><td>A1</td><td>3</td></tr><tr><td>B2</td><td>5</td></tr></table>';
    expect(reformat(html, 'csv').text).to.equal('sku,qty\nA1,3\nB2,5');
  });

  it('escapes text when producing html', () => {
    expect(reformat('Use a < b & c > d in the formula. It works.', 'html').text).to.equal(
      '<p>Use a &lt; b &amp; c &gt; d in the formula. It works.</p>',
    );
  });

  it('refuses prose -> csv with an unsupported error', () => {
    try {
      reformat('This is just prose. It has no columns at all.', 'csv');
      expect.fail('expected an error');
    } catch (error) {
      expect(error).to.be.instanceOf(AppError);
      expect((error as AppError).code).to.equal('unsupported');
      expect((error as AppError).message).to.match(/paragraph to csv/);
    }
  });
});
