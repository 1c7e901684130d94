/**
 * Apertium names its modes with ISO 639-3 codes (eng-spa) or, for older pairs, ISO 639-1 (es-fr);
 * requests use ISO 639-1. These are the languages Debian's Apertium pairs cover.
 */
const ISO_639_1: Record<string, string> = {
  afr: 'af',
  arg: 'an',
  ast: 'ast',
  bel: 'be',
  bre: 'br',
  bul: 'bg',
  cat: 'ca',
  ces: 'cs',
  cym: 'cy',
  dan: 'da',
  deu: 'de',
  eng: 'en',
  epo: 'eo',
  eus: 'eu',
  fra: 'fr',
  glg: 'gl',
  hbs: 'sh',
  hin: 'hi',
  ind: 'id',
  isl: 'is',
  ita: 'it',
  kaz: 'kk',
  mkd: 'mk',
  mlt: 'mt',
  nld: 'nl',
  nno: 'nn',
  nob: 'nb',
  nor: 'no',
  oci: 'oc',
  por: 'pt',
  ron: 'ro',
  rus: 'ru',
  slv: 'sl',
  spa: 'es',
  srd: 'sc',
  swe: 'sv',
  tat: 'tt',
  ukr: 'uk',
  urd: 'ur',
  zlm: 'ms',
};

/** One translation direction the engine has, in request codes, with the engine's own name for it. */
export interface LanguagePair {
  source: string;
  target: string;
  /** The apertium mode (command) or APY langpair halves joined by "-". */
  mode: string;
}

function toRequestCode(code: string): string {
  return ISO_639_1[code] ?? code;
}

/**
 * Pairs from mode names such as "eng-spa" or "es-fr". Variants ("spa-eng_US"), debugging and
 * chained modes ("eco-es-fr") are not directions a request can name and are skipped; when two
 * modes give the same direction (en-es and eng-spa) the first listed wins.
 */
export function pairsFromModes(modes: string[]): LanguagePair[] {
  const pairs = new Map<string, LanguagePair>();
  for (const mode of modes) {
    const match = /^([a-z]{2,3})-([a-z]{2,3})$/.exec(mode.trim());
    if (!match) continue;
    const pair = {
      source: toRequestCode(match[1]!),
      target: toRequestCode(match[2]!),
      mode: match[0],
    };
    const key = `${pair.source}-${pair.target}`;
    if (pair.source !== pair.target && !pairs.has(key)) pairs.set(key, pair);
  }
  return [...pairs.values()].sort((a, b) =>
    `${a.source}-${a.target}`.localeCompare(`${b.source}-${b.target}`),
  );
}

export function pairName(pair: { source: string; target: string }): string {
  return `${pair.source}-${pair.target}`;
}
