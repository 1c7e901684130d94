/** Words too common to tell documents apart; dropping them keeps BM25 scores about content. */
const STOPWORDS = new Set(
  (
    'a about above after again all am an and any are as at be because been before being below between both but by ' +
    'can could did do does doing done down during each few for from further get got had has have having he her here ' +
    'hers him his how i if in into is it its itself just me more most my myself no nor not now of off on once only or ' +
    'other our ours out over own please same she should so some such than that the their theirs them then there these ' +
    'they this those through to too under until up very was we were what which while who whom why will ' +
    'with would you your yours yourself hi hello hey thanks thank want need like know tell help can could'
  ).split(' '),
);

/** Doubled final consonants left by stripping -ing/-ed (shipping -> shipp -> ship). */
const DOUBLE_CONSONANT = /([bcdfgkmnprt])\1$/;

/**
 * A light suffix stemmer (plural, -ing, -ed, -ment, final e): enough for "refunds"/"refunded",
 * "shipping"/"shipped", "enrolment"/"enroll" to meet, without the surprises of a full Porter stemmer.
 */
export function stem(word: string): string {
  let w = word;
  if (w.length <= 3) return w;
  if (w.endsWith('ies') && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (w.endsWith('sses')) w = w.slice(0, -2);
  else if (w.endsWith('s') && !w.endsWith('ss') && !w.endsWith('us') && !w.endsWith('is'))
    w = w.slice(0, -1);
  if (w.endsWith('ment') && w.length > 7) w = w.slice(0, -4);
  if (w.endsWith('ing') && w.length > 5) w = undouble(w.slice(0, -3));
  else if (w.endsWith('ed') && w.length > 4) w = undouble(w.slice(0, -2));
  if (w.endsWith('ll') && w.length > 5) w = w.slice(0, -1);
  if (w.endsWith('e') && w.length > 4) w = w.slice(0, -1);
  return w;
}

function undouble(w: string): string {
  return DOUBLE_CONSONANT.test(w) ? w.slice(0, -1) : w;
}

/** Lower-cased, accent-free words of text in any script ("Straße" -> "strasse", "Москва" -> "москва"). */
export function words(text: string): string[] {
  return (
    text
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase()
      .replace(/ß/g, 'ss')
      .match(/[\p{L}\p{M}\p{N}]+/gu) ?? []
  );
}

/** Index terms of text: words without stopwords, stemmed. */
export function tokenize(text: string): string[] {
  return words(text)
    .filter((word) => !STOPWORDS.has(word))
    .map(stem);
}
