import { readAudience } from '../src/language/audience';
import { expect } from './chai';

const groups = (text: string) => readAudience(text).groups.sort();

describe('audience of a description or question (readAudience)', () => {
  it('reads a kids audience in the four languages, German compounds and ages included', () => {
    for (const text of [
      'Storytime for little ones.',
      'Fun for the whole family!',
      'Cuentos y canciones para los más pequeños.',
      'Ein Puppenspiel für Kinder ab 4 Jahren.',
      'Familienkonzert am Sonntag.',
      'Un concert pour les enfants et leurs parents.',
      'Ages 3-8. The show lasts 50 minutes.',
      'anything for my 6 year old?',
    ])
      expect(groups(text), text).to.deep.equal(['kids']);
  });

  it('a negated or adults-only clause is not for kids', () => {
    for (const text of [
      'Spicy songs and sketches. Not suitable for children.',
      'No apto para niños.',
      'Keine Kinder, bitte.',
      'Concert tardif, déconseillé aux enfants.',
      'Adults only, no kids.',
      'Over 18 only.',
      'Ages 16 and up.',
    ])
      expect(groups(text), text).to.not.include('kids');
  });

  it('words that only look like an audience say nothing', () => {
    for (const text of [
      'Stand-up of a kind you have never seen.',
      'What kind of concerts are on?',
      'A kinder world starts here.',
      'A familiar tune.',
      'Doors open from 3 pm.',
      'Ab 20 Uhr.',
    ])
      expect(groups(text), text).to.deep.equal([]);
  });
});
