import { courses, courseTemplates, type Course, type CourseTemplate } from '../data/catalog';
import { Bm25Index } from './bm25';

export class CourseSearch {
  private readonly index: Bm25Index<Course>;

  constructor(private readonly catalog: readonly Course[] = courses) {
    this.index = new Bm25Index(
      catalog.map((c) => ({
        id: c.id,
        text: [c.title, c.title, c.level, c.format, c.description].join('\n'),
        item: c,
      })),
    );
  }

  /** Courses about the question's subject; the whole catalogue when it names none. */
  find(question: string, limit = 5): Course[] {
    const hits = this.index.search(question, limit).map((hit) => hit.item);
    return hits.length > 0 ? hits : this.catalog.slice(0, limit);
  }
}

/** Picks the outline template whose field fits a course topic best, if any does. */
export class TemplateSearch {
  private readonly index: Bm25Index<CourseTemplate>;

  constructor(templates: readonly CourseTemplate[] = courseTemplates) {
    this.index = new Bm25Index(
      templates.map((t) => ({ id: t.id, text: [t.field, ...t.keywords].join('\n'), item: t })),
    );
  }

  forTopic(topic: string): CourseTemplate | undefined {
    return this.index.search(topic, 1)[0]?.item;
  }
}
