import { supportArticles, type SupportArticle } from '../data/catalog';
import { Bm25Index, type Bm25Hit } from './bm25';

/**
 * Below this BM25 score a best hit is a coincidence of one common word, not an answer; tuned on
 * the shipped articles (real questions score 4+, unrelated ones under 2).
 */
export const MIN_ARTICLE_SCORE = 2.5;
/** Further articles are shown as related only when they score close to the best one. */
const RELATED_SHARE = 0.6;

/** Title and tags are repeated so that they weigh more than the body. */
function articleText(article: SupportArticle): string {
  const tags = article.tags.join(' ');
  return [article.title, article.title, tags, tags, article.summary, ...article.steps].join('\n');
}

export class KnowledgeBase {
  private readonly index: Bm25Index<SupportArticle>;

  constructor(articles: readonly SupportArticle[] = supportArticles) {
    this.index = new Bm25Index(articles.map((a) => ({ id: a.id, text: articleText(a), item: a })));
  }

  /** Every scored article, best first, without the threshold (for ranking and tests). */
  rank(query: string, limit = 5): Bm25Hit<SupportArticle>[] {
    return this.index.search(query, limit);
  }

  /** The best article and close runners-up, or nothing when no article really answers. */
  answer(query: string): Bm25Hit<SupportArticle>[] {
    const hits = this.rank(query, 3);
    const best = hits[0];
    if (!best || best.score < MIN_ARTICLE_SCORE) return [];
    return hits
      .filter((hit) => hit === best || hit.score >= best.score * RELATED_SHARE)
      .slice(0, 2);
  }
}
