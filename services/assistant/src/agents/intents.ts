import {
  CHEAPEST,
  CLOSINGS,
  CONFIRMATIONS,
  EARLIEST,
  GREETINGS,
  MORE_ABOUT,
  ORDINALS,
  POINTERS,
  SMALL_TALK,
} from '../language/lexicon';
import { firstPhrase, hasPhrase, normalize, withoutPhrases } from '../language/normalize';

/** "hi", "hello there", "thanks!", "¡hola!", "guten Tag": nothing but a greeting, thanks or small talk. */
export function isSmallTalk(text: string): boolean {
  const normalized = normalize(text);
  if (normalized.trim() === '') return false;
  // Longest phrases first, so "thank you" goes before "you".
  const phrases = [...SMALL_TALK].sort((a, b) => b.length - a.length);
  return withoutPhrases(normalized, phrases).trim() === '';
}

/** Thanks or goodbye without a hello ("thanks!", "ok, danke", "merci, au revoir"). */
export function isClosing(text: string): boolean {
  const normalized = normalize(text);
  return (
    CLOSINGS.some((w) => hasPhrase(normalized, w)) &&
    !GREETINGS.some((w) => hasPhrase(normalized, w))
  );
}

/** A short agreement ("done", "yes please", "sí", "c'est bon"), with no content of its own. */
export function isConfirmation(text: string): boolean {
  const phrases = [
    ...CONFIRMATIONS,
    'please',
    'thanks',
    'thank you',
    'step',
    'por favor',
    'bitte',
    's il vous plait',
    'it',
    'is',
    'i m',
    'im',
    'we re',
    'all',
  ]
    .concat(Array.from({ length: 9 }, (_, i) => String(i + 1)))
    .sort((a, b) => b.length - a.length);
  const normalized = normalize(text);
  return (
    CONFIRMATIONS.some((c) => hasPhrase(normalized, c)) &&
    withoutPhrases(normalized, phrases).trim() === ''
  );
}

/** A message that starts with an agreement and goes on ("Confirmed. Modules: ..."). */
export function startsWithConfirmation(text: string): boolean {
  const normalized = normalize(text);
  return CONFIRMATIONS.some((c) => normalized.startsWith(normalize(c)));
}

/** "no", "no thanks", "not now": declining an offer. */
export function isDecline(text: string): boolean {
  const normalized = normalize(text);
  return /^ (no|nope|not now|no thanks|no thank you|nein|non|no gracias|nein danke|non merci)\b/.test(
    normalized,
  );
}

/** What a message points at in the list last shown: a position, the cheapest, the earliest, or "it". */
export type Pointer =
  | { kind: 'position'; index: number }
  | { kind: 'cheapest' }
  | { kind: 'earliest' }
  | { kind: 'focus' };

/** "number 6", "Nr. 7", "#8", "option 2", or a message that is only a number: a place in the list. */
const NUMBERED =
  /^ (?:(?:the|la|el|le|die|der|das)? ?(?:number|nummer|nr|no|numero|num|option|opcion|item|punkt|point) )?(\d{1,2}) (?:one |please |bitte |por favor )?$|(?:number|nummer|nr|numero|option|opcion) (\d{1,2}) /;

export function pointerIn(text: string): Pointer | undefined {
  const normalized = normalize(text);
  for (const [position, words] of ORDINALS)
    if (firstPhrase(normalized, words)) return { kind: 'position', index: position };
  const numbered = NUMBERED.exec(normalized);
  const index = Number(numbered?.[1] ?? numbered?.[2]);
  if (index >= 1) return { kind: 'position', index };
  if (firstPhrase(normalized, CHEAPEST)) return { kind: 'cheapest' };
  if (firstPhrase(normalized, EARLIEST)) return { kind: 'earliest' };
  if (firstPhrase(normalized, POINTERS) || firstPhrase(normalized, MORE_ABOUT))
    return { kind: 'focus' };
  return undefined;
}

/** A short quote of a message for "earlier you asked ...". */
export function quote(text: string, max = 80): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length > max ? `${oneLine.slice(0, max - 1)}…` : oneLine;
}
