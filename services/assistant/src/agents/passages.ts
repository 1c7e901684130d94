import { normalize } from '../language/normalize';
import { tokenize } from '../retrieval/tokenize';

/** Lines of an article that describe it rather than say anything: tags, categories, dates, authors. */
const METADATA =
  /^\s*(?:[-*]\s*)?(?:tags?|keywords?|categor(?:y|ies)|labels?|topics?|updated|last updated|published|author|id|slug|etiquetas|schlagw(?:o|ö)rter|mots[- ]cl(?:e|é)s)\s*:/i;

/** A line that is an entry of a list of values: a short label, a colon, a value ("Full service: 89 EUR"). */
const ENTRY = /^[^:.!?]{1,40}:\s+\S/;

/** "How do I ...?", "how to ...": a question for a procedure (not "how long", "how much"). */
const ASKS_FOR_STEPS =
  /\b(how (do|can|should|would|could) (i|we|you)|how to|como (puedo|hago|se puede|debo)|wie (kann|mache|muss|soll) ich|comment (puis je|faire|je peux|dois je))\b/;

/** A block of an article: a paragraph, a heading or one list item (its marker kept). */
export interface Block {
  index: number;
  text: string;
  /** A numbered or bulleted step. */
  item: boolean;
  heading: boolean;
}

/** The article's blocks without front matter, metadata lines or empty lines. */
export function blocksOf(body: string): Block[] {
  const withoutFrontMatter = body.replace(/^---\n[\s\S]*?\n---\n/, '');
  const blocks: Block[] = [];
  let paragraph: string[] = [];
  const flush = () => {
    if (paragraph.length > 0)
      blocks.push({ index: blocks.length, text: paragraph.join(' '), item: false, heading: false });
    paragraph = [];
  };
  for (const raw of withoutFrontMatter.split('\n')) {
    const line = raw.trim();
    if (line === '' || METADATA.test(line)) {
      flush();
      continue;
    }
    if (/^(\d+[.)]|[-*•])\s+/.test(line)) {
      flush();
      blocks.push({ index: blocks.length, text: line, item: true, heading: false });
    } else if (ENTRY.test(line)) {
      // "Full service: 89 EUR": one entry of a list of its own, not part of a paragraph.
      flush();
      blocks.push({ index: blocks.length, text: line, item: false, heading: false });
    } else if (/^#{1,6}\s/.test(line)) {
      flush();
      blocks.push({
        index: blocks.length,
        text: line.replace(/^#+\s*/, ''),
        item: false,
        heading: true,
      });
    } else paragraph.push(line);
  }
  flush();
  return blocks;
}

/**
 * The blocks of an article that answer a question: the best matching block, with the steps of
 * its list when it leads into one (or is one of them), at most `limit` blocks; blocks quoted
 * before are passed over while others match. Empty when nothing in the article matches.
 */
export function relevantBlocks(
  body: string,
  question: string,
  quoted: number[] = [],
  limit = 5,
): Block[] {
  const blocks = blocksOf(body).filter((b) => !b.heading);
  const asked = new Set(tokenize(question));
  // "How do I ...?" asks for steps: a step or the line that leads into them wins a tie.
  const howTo = /\b(how|como|cómo|wie|comment)\b/i.test(question);
  const scored = blocks.map((b) => {
    const score = tokenize(b.text).filter((t) => asked.has(t)).length;
    const steps = b.item || /:\s*$/.test(b.text);
    return { block: b, score: score > 0 && howTo && steps ? score + 0.5 : score };
  });
  const fresh = scored.filter((s) => s.score > 0 && !quoted.includes(s.block.index));
  const pool = fresh.length > 0 ? fresh : scored.filter((s) => s.score > 0);
  const best = pool.sort((a, b) => b.score - a.score || a.block.index - b.block.index)[0];
  if (!best) return [];
  const at = blocks.indexOf(best.block);
  const chosen = [best.block];
  const leadsIntoList = !best.block.item && /:\s*$/.test(best.block.text);
  if (best.block.item || leadsIntoList) {
    // The steps around it, in order: a step makes sense only with its neighbours.
    let start = at;
    while (best.block.item && start > 0 && blocks[start - 1]?.item) start--;
    const steps: Block[] = [];
    for (let i = leadsIntoList ? at + 1 : start; i < blocks.length && blocks[i]?.item; i++)
      steps.push(blocks[i] as Block);
    const lead =
      best.block.item && start > 0 && /:\s*$/.test(blocks[start - 1]?.text ?? '')
        ? [blocks[start - 1] as Block]
        : [];
    return [...lead, ...(leadsIntoList ? [best.block] : []), ...steps].slice(0, limit);
  }
  // A paragraph: with the next one when it goes on about the question too.
  const next = blocks[at + 1];
  if (next && !next.item && scored.find((s) => s.block === next)!.score > 0) chosen.push(next);
  // A question for a procedure is answered by the steps: the first list after the paragraph that matches too.
  if (ASKS_FOR_STEPS.test(normalize(question))) {
    const steps = stepsAfter(blocks, at, (b) => scored.find((s) => s.block === b)!.score);
    chosen.push(...steps.filter((b) => !chosen.includes(b)));
  }
  return chosen.slice(0, limit);
}

/** The first list of steps after block `at` with a step that matches (score > 0), with its lead line. */
function stepsAfter(blocks: Block[], at: number, score: (b: Block) => number): Block[] {
  for (let start = at + 1; start < blocks.length; start++) {
    if (!blocks[start]?.item) continue;
    let end = start;
    while (blocks[end + 1]?.item) end++;
    const steps = blocks.slice(start, end + 1);
    if (steps.some((b) => score(b) > 0)) {
      const lead = blocks[start - 1];
      return lead && start - 1 > at && /:\s*$/.test(lead.text) ? [lead, ...steps] : steps;
    }
    start = end;
  }
  return [];
}

/**
 * The first blocks of an article that lie in the passage retrieval matched, for an article found
 * by meaning (vector search) that shares no word with the question; never its metadata.
 */
export function openingBlocks(body: string, passage: string, limit = 3): Block[] {
  const flat = (text: string) => text.replace(/\s+/g, ' ').trim();
  const inPassage = flat(passage);
  const blocks = blocksOf(body).filter((b) => !b.heading);
  const matched = blocks.filter((b) => inPassage.includes(flat(b.text)));
  return (matched.length > 0 ? matched : blocks).slice(0, limit);
}
