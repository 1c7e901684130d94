import { expect } from './chai';
import { GroundedFacts, REPLY_TOKEN_CAP, type GroundingIssue } from '../src/responders/grounding';

/** A bicycle repair shop's facts as a model is given them, on Thursday 10 December 2026 in Leipzig. */
const FACTS = [
  '[1] id services/full-service: Full service: 89 EUR. Brakes, gears, wheels trued, chain cleaned.',
  '[2] id workshops/kids-1: **Kids bike workshop** - Sat 12 Dec 2026, 11:00 · Werkstatt Süd, Leipzig · from 15 EUR',
  'Opening hours: Mo–Fr 9:00–18:00, Sa 10:00–14:00',
  'Support: hilfe@pedalwerk.example, +49 341 5550199, https://pedalwerk.example/kontakt',
];

function issues(
  reply: string,
  userWords: string[] = [],
  tokensOutput = 40,
  otherItems: string[] = [],
): GroundingIssue[] {
  return new GroundedFacts({
    facts: FACTS,
    userWords,
    itemCount: 2,
    otherItems,
    now: new Date('2026-12-10T10:00:00Z'),
    timeZone: 'Europe/Berlin',
  }).issuesOf({ text: reply, tokensOutput });
}

const kinds = (found: GroundingIssue[]) => [...new Set(found.map((i) => i.kind))].sort();

describe('grounding check', () => {
  it('passes a reply whose prices, dates, times, names and contacts are all in the facts', () => {
    expect(
      issues(
        'A full service costs 89 EUR. The Kids bike workshop is on Saturday, 12 December at 11:00 ' +
          'at Werkstatt Süd in Leipzig (from 15 EUR). We are open Monday to Friday 9:00 to 18:00; ' +
          'write to hilfe@pedalwerk.example or call +49 341 5550199.',
      ),
    ).to.deep.equal([]);
  });

  it('passes the same facts in German, Spanish and French wording', () => {
    expect(
      issues(
        'Die Komplettinspektion kostet 89 €. Der Kinder-Workshop ist am Samstag, 12. Dezember um 11 Uhr.',
      ),
    ).to.deep.equal([]);
    expect(
      issues('El taller es el sábado 12 de diciembre a las 11:00 y cuesta 15 EUR.'),
    ).to.deep.equal([]);
    expect(issues("L'atelier a lieu samedi 12 décembre à 11h, pour 15 €.")).to.deep.equal([]);
  });

  it('catches an invented price, a per-day rate and "24 hours a day" (the issue\'s reply)', () => {
    const found = issues(
      'The price of a full service is around 45 euros per day… available 24 hours a day.',
    );
    expect(kinds(found)).to.deep.equal(['number', 'price']);
    expect(found.find((i) => i.kind === 'price')?.value).to.equal('45 euros');
  });

  it('catches a wrong date, a wrong time and an invented place', () => {
    const found = issues('The kids workshop is 2021-12-28 at 2:00 PM Tokyo.');
    expect(kinds(found)).to.deep.equal(['date', 'name']);
    expect(kinds(issues('The Kids bike workshop starts on Saturday at 15:30.'))).to.deep.equal([
      'time',
    ]);
  });

  it('catches an invented phone number, email address and link, and a bare number as an address', () => {
    expect(kinds(issues('Call us at +49 341 1234567.'))).to.deep.equal(['phone']);
    expect(kinds(issues('Write to service@pedalwerk.example.'))).to.deep.equal(['email']);
    expect(kinds(issues('Book at [our shop](https://pedalwerk.example/book).'))).to.deep.equal([
      'url',
    ]);
    expect(kinds(issues("Here's my address: 1234567890"))).to.deep.equal(['number']);
  });

  it("takes numbers, names and contacts from the user's words, never a price the user guessed", () => {
    expect(
      issues('I have noted order A-10492, Anna.', ['My name is Anna, order A-10492']),
    ).to.deep.equal([]);
    expect(kinds(issues('Yes, it is 45 euros.', ['Is a full service 45 euros?']))).to.deep.equal([
      'price',
    ]);
  });

  it('allows a list numbering and counts up to the items shown', () => {
    expect(
      issues('I found 2 offers:\n1. Full service: 89 EUR\n2. Kids bike workshop (15 EUR)'),
    ).to.deep.equal([]);
  });

  it('overrules a reply mostly in words the facts do not have (steps a model made up)', () => {
    expect(
      kinds(
        issues(
          'Take your bike to the nearest garage, ask for a mechanic, leave your keys at reception and collect a loan bike later.',
        ),
      ),
    ).to.deep.equal(['unsupported']);
    expect(
      issues('The full service covers brakes, gears and wheels trued, and the chain is cleaned.'),
    ).to.deep.equal([]);
    expect(issues('Hello! How can I help you today?')).to.deep.equal([]);
    expect(issues('Yes, the Kids bike workshop suits beginners.')).to.deep.equal([]);
    expect(kinds(issues('The lessons beside costing doivrai capi.'))).to.deep.equal([
      'unsupported',
    ]);
  });

  it('overrules a reply that names an item shown earlier instead of the one the turn is about', () => {
    // Every word of it is in the facts: only the item it names is wrong.
    const earlier = ['Kids bike workshop'];
    expect(kinds(issues('The Kids bike workshop costs 15 EUR.', [], 40, earlier))).to.deep.equal([
      'name',
    ]);
    expect(issues('A full service costs 89 EUR.', [], 40, earlier)).to.deep.equal([]);
  });

  it('cuts a reply that loops or ran into its token cap', () => {
    const loop = 'The full service is great for your bike. '.repeat(4);
    expect(kinds(issues(loop))).to.include('loop');
    expect(
      kinds(
        issues('A full service costs 89 EUR and it includes the brakes and', [], REPLY_TOKEN_CAP),
      ),
    ).to.deep.equal(['length']);
    expect(issues('A full service costs 89 EUR.', [], REPLY_TOKEN_CAP)).to.deep.equal([]);
  });
});
