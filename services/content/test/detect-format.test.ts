import { expect } from 'chai';
import { detectFormat } from '../src/models/builtin/detect-format';

describe('format detection', () => {
  const cases: Array<[string, string]> = [
    [
      'paragraph',
      'The meeting went well. We agreed on a budget for next year and a timeline for the launch.',
    ],
    [
      'paragraph',
      'First paragraph has a sentence.\n\nSecond paragraph also has one, and it runs a little longer.',
    ],
    ['bullet_list', '- apples\n- pears\n* plums'],
    ['numbered_list', '1. Preheat the oven\n2. Mix the flour\n3) Bake for 20 minutes'],
    [
      'markdown',
      '# Release notes\n\nThis release adds **dark mode**.\n\n- faster search\n- fewer bugs',
    ],
    ['markdown', 'Read the [docs](https://example.com) before you start.'],
    ['json', '{"name": "Ada", "skills": ["math", "code"]}'],
    ['json', '[1, 2, 3]'],
    ['csv', 'name,age,city\nAda,36,London\nAlan,41,Manchester'],
    ['csv', 'product;price\nTea;3.50\nCoffee;4.20'],
    ['html', '<p>Hello <strong>world</strong></p>'],
    ['html', '<ul><li>one</li><li>two</li></ul>'],
    ['plain', 'hello world'],
    ['plain', 'error 42 at startup\nretrying in 5s'],
  ];
  for (const [format, text] of cases) {
    it(`detects ${format}: ${JSON.stringify(text.slice(0, 30))}`, () => {
      expect(detectFormat(text)).to.equal(format);
    });
  }

  it('does not take broken JSON or prose with commas for json or csv', () => {
    expect(detectFormat('{"name": "Ada",')).to.not.equal('json');
    expect(
      detectFormat('Well, the plan worked. Later, we celebrated.\nThen, at last, we slept.'),
    ).to.equal('paragraph');
  });
});
