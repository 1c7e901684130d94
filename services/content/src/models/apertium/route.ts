import type { LanguagePair } from './languages';

/**
 * The shortest chain of installed pairs from source to target (breadth-first): one pair when a
 * direct one exists, else through pivot languages (en -> es -> fr). Undefined when none connects.
 */
export function findRoute(
  pairs: LanguagePair[],
  source: string,
  target: string,
): LanguagePair[] | undefined {
  const cameFrom = new Map<string, LanguagePair>();
  const queue = [source];
  const seen = new Set(queue);
  while (queue.length > 0) {
    const language = queue.shift()!;
    if (language === target) return routeTo(cameFrom, source, target);
    for (const pair of pairs) {
      if (pair.source !== language || seen.has(pair.target)) continue;
      seen.add(pair.target);
      cameFrom.set(pair.target, pair);
      queue.push(pair.target);
    }
  }
  return undefined;
}

function routeTo(
  cameFrom: Map<string, LanguagePair>,
  source: string,
  target: string,
): LanguagePair[] {
  const hops: LanguagePair[] = [];
  for (let language = target; language !== source;) {
    const pair = cameFrom.get(language)!;
    hops.unshift(pair);
    language = pair.source;
  }
  return hops;
}

/** Whether pairs named "en-es" connect source to target. */
export function canRoute(pairNames: string[], source: string, target: string): boolean {
  const pairs = pairNames.map((name) => {
    const [from = '', to = ''] = name.split('-');
    return { source: from, target: to, mode: name };
  });
  return findRoute(pairs, source, target) !== undefined;
}
