import { urlOf } from '../knowledge/documents';
import type { ContextItem } from '../agents/types';

/** Markdown links: [text](url) (not images). */
const LINK = /(?<!!)\[([^\]]*)\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g;

/** URLs a reply may link to: those of the records retrieved for the turn. */
export function retrievedUrls(context: ContextItem[]): Set<string> {
  const urls = new Set<string>();
  for (const item of context) {
    if (item.kind === 'knowledge') {
      const url = urlOf(item.found.doc);
      if (url) urls.add(url);
    }
  }
  return urls;
}

/** Keeps links to retrieved records; any other link becomes its plain text (a model must not invent sources). */
export function keepRetrievedLinks(reply: string, allowed: Set<string>): string {
  return reply.replace(LINK, (link, text: string, url: string) => (allowed.has(url) ? link : text));
}
