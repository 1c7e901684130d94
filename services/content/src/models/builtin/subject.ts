import { isStopword, words } from './text';

/** Words that describe the task rather than its subject. */
const INSTRUCTION_WORDS = new Set(
  (
    'write writing create generate compose draft produce give make tell describe describing explain introduce introducing ' +
    'promote promoting please me us short long brief quick catchy engaging compelling detailed product description ' +
    'descriptions copy marketing text article blog post email newsletter tagline slogan paragraph paragraphs piece ' +
    'content words sentence sentences summary ad advert advertisement announcement landing page social media tweet ' +
    'caption headline story intro introduction few some about regarding launch announce announcing ' +
    'écris écrivez rédige rédigez crée créez une un des description produit article texte courte court ' +
    'schreibe schreiben sie erstelle erstellen eine einen ein kurze kurzen kurz produktbeschreibung beschreibung text ' +
    'escribe escriba crea cree una unos descripción producto artículo texto breve corta ' +
    // Function words of the other supported languages, which lead into the subject.
    'de du des le la les à au aux pour sur notre für über zu zum zur von vom für einen dem den unser unsere ' +
    'para sobre del el los las un nuestro nuestra'
  ).split(/\s+/),
);

const CLAUSE_END =
  /\s*(?:[,;:.!?()]|\s-\s|(?<=^|\s)(?:with|that|which|who|featuring|including|highlighting|focusing|emphasizing|targeting|aimed|in|to|for|using|avec|qui|pour|mit|das|für|con|que|para)(?=\s|$))/i;
const LEADING_ARTICLES =
  /^(?:(?:a|an|the|our|my|your|their|this|new|un|une|le|la|les|l'|des|du|notre|ein|eine|einen|der|die|das|unser|unsere|el|la|los|las|un|una|unos|nuestro|nuestra)\s+)+/i;
const TITLE_SMALL_WORDS = new Set([
  'a',
  'an',
  'the',
  'of',
  'and',
  'or',
  'for',
  'with',
  'in',
  'on',
  'to',
  'de',
  'du',
  'des',
  'et',
  'la',
  'le',
  'y',
  'und',
  'von',
  'à',
  'del',
  'el',
]);

function cutClause(phrase: string): string {
  const cut = CLAUSE_END.exec(phrase);
  return (cut && cut.index > 0 ? phrase.slice(0, cut.index) : phrase)
    .replace(LEADING_ARTICLES, '')
    .trim();
}

function withoutInstructions(prompt: string): string {
  const tokens = prompt.split(/\s+/);
  let start = 0;
  while (start < tokens.length) {
    const word = words(tokens[start]!)[0] ?? '';
    if (!(INSTRUCTION_WORDS.has(word) || isStopword(word))) break;
    start++;
  }
  return tokens.slice(start).join(' ');
}

/** "noise-cancelling headphones" -> "Noise-Cancelling Headphones"; acronyms and mixed case are kept. */
export function titleCase(phrase: string): string {
  return phrase
    .split(/\s+/)
    .map((word, i) => {
      if (word !== word.toLowerCase()) return word;
      if (i > 0 && TITLE_SMALL_WORDS.has(word)) return word;
      return word.replace(
        /(^|-)(\p{L})/gu,
        (_, dash: string, letter: string) => dash + letter.toUpperCase(),
      );
    })
    .join(' ');
}

export interface PromptTopic {
  /** The thing the piece is about, title-cased ("Waterproof Hiking Backpack"). */
  subject: string;
  /** Other content words of the prompt, in order, to develop in the body. */
  keywords: string[];
}

const PHRASE_SEPARATORS =
  /\s*(?:[,;:.!?()&]|\s-\s|(?<=^|\s)(?:and|with|plus|featuring|including|highlighting|focusing|focused|emphasizing|covering|on|about|that|which|has|have|et|avec|und|mit|y|con)(?=\s|$))\s*/i;

/** Feature phrases after the subject ("with 30L capacity and padded straps" -> "30L capacity", "padded straps"). */
function featurePhrases(rest: string, subjectWords: Set<string>): string[] {
  return rest
    .split(PHRASE_SEPARATORS)
    .map((phrase) => phrase.replace(LEADING_ARTICLES, '').trim())
    .map((phrase) =>
      phrase
        .split(/\s+/)
        .filter((w) => !isStopword(w.toLowerCase()))
        .slice(0, 4)
        .join(' '),
    )
    .filter((phrase) => {
      const content = words(phrase).filter(
        (w) => !subjectWords.has(w) && !INSTRUCTION_WORDS.has(w),
      );
      return content.length > 0 && phrase.length > 2;
    });
}

/** Derives what to write about from a free-form prompt. */
export function extractTopic(prompt: string): PromptTopic {
  const flat = prompt.replace(/\s+/g, ' ').trim();
  // Leading instruction and function words are dropped ("Write a product description for ..."),
  // and the subject ends where a clause starts ("... with padded straps").
  const body = withoutInstructions(flat);
  let subject = cutClause(body);
  if (words(subject).length === 0 || words(subject).length > 6) {
    subject =
      words(flat)
        .filter((w) => !isStopword(w) && !INSTRUCTION_WORDS.has(w))
        .slice(0, 3)
        .join(' ') || flat.slice(0, 40);
  }
  const subjectWords = new Set(words(subject));
  const at = body.toLowerCase().indexOf(subject.toLowerCase());
  const rest = at >= 0 ? body.slice(at + subject.length) : body;
  const keywords = [...new Set(featurePhrases(rest, subjectWords))].slice(0, 4);
  return { subject: titleCase(subject), keywords };
}
