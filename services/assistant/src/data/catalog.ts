import articlesJson from './support-articles.json';
import eventsJson from './events.json';
import coursesJson from './courses.json';
import curriculumJson from './curriculum-guide.json';

/** A help-centre article of the support knowledge base. */
export interface SupportArticle {
  id: string;
  title: string;
  url: string;
  category: string;
  /** Phrases customers use for this topic (synonyms help retrieval). */
  tags: string[];
  summary: string;
  steps: string[];
}

/** A ticketed event; date is local time with its UTC offset. */
export interface EventRecord {
  id: string;
  name: string;
  category: string;
  city: string;
  venue: string;
  date: string;
  priceFrom: number;
  currency: string;
  description: string;
}

export interface Course {
  id: string;
  title: string;
  level: string;
  format: string;
  durationWeeks: number;
  price: number;
  currency: string;
  /** Cohort courses start on a date; self-paced ones have none. */
  startDate: string | null;
  description: string;
}

/** One of the five onboarding steps of the course curriculum guide. */
export interface CurriculumStep {
  step: number;
  title: string;
  goal: string;
  guidance: string[];
  confirm: string;
}

/** Field-specific suggestions for a course outline, chosen by the course topic. */
export interface CourseTemplate {
  id: string;
  field: string;
  keywords: string[];
  modules: string[];
  activities: string[];
  assignment: string;
  quizIdea: string;
}

export const supportArticles: readonly SupportArticle[] = articlesJson;
export const events: readonly EventRecord[] = eventsJson;
export const courses: readonly Course[] = coursesJson;
export const curriculumSteps: readonly CurriculumStep[] = curriculumJson.steps;
export const courseTemplates: readonly CourseTemplate[] = curriculumJson.templates;

export function curriculumStep(step: number): CurriculumStep {
  const found = curriculumSteps.find((s) => s.step === step);
  if (!found) throw new Error(`curriculum guide has no step ${step}`);
  return found;
}
