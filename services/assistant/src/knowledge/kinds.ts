import Ajv, { type ErrorObject, type JSONSchemaType } from 'ajv';
import addFormats from 'ajv-formats';
import { IANAZone } from 'luxon';
import { AppError, type ErrorDetail } from '@switchyard/shared';

export const COLLECTION_KINDS = ['events', 'courses', 'articles', 'documents'] as const;
export type CollectionKind = (typeof COLLECTION_KINDS)[number];

export function isCollectionKind(value: string): value is CollectionKind {
  return (COLLECTION_KINDS as readonly string[]).includes(value);
}

/**
 * Values of fields a kind does not know (an import's other columns: "Öffnungszeiten", "Straße"),
 * by their name as written: searched, and shown with the document.
 */
export type Metadata = Record<string, string | number | boolean>;

export interface EventFields {
  title: string;
  description?: string;
  venue?: string;
  city?: string;
  /** ISO 8601 with offset or Z. */
  startsAt: string;
  endsAt?: string;
  /** The venue's IANA time zone (dates are shown in it). */
  timeZone?: string;
  price?: number;
  currency?: string;
  url?: string;
  tags?: string[];
  metadata?: Metadata;
}

export interface Lesson {
  title: string;
  summary?: string;
}

export interface CourseModule {
  title: string;
  lessons: Lesson[];
}

export interface CourseFields {
  title: string;
  description?: string;
  level?: string;
  modules: CourseModule[];
  price?: number;
  currency?: string;
  url?: string;
  tags?: string[];
  metadata?: Metadata;
}

export interface ArticleFields {
  title: string;
  /** Markdown. */
  body: string;
  url?: string;
  tags?: string[];
  metadata?: Metadata;
}

export interface DocumentFields {
  text: string;
  title?: string;
  url?: string;
  tags?: string[];
  metadata?: Metadata;
}

const text = { type: 'string', minLength: 1, maxLength: 1000 } as const;
const optionalText = { type: 'string', maxLength: 1000, nullable: true } as const;
const longText = { type: 'string', minLength: 1, maxLength: 200_000 } as const;
const url = {
  type: 'string',
  format: 'uri',
  pattern: '^https?://',
  maxLength: 2000,
  nullable: true,
} as const;
const tags = {
  type: 'array',
  items: { type: 'string', minLength: 1, maxLength: 100 },
  maxItems: 50,
  nullable: true,
} as const;
const price = { type: 'number', minimum: 0, nullable: true } as const;
const currency = { type: 'string', pattern: '^[A-Z]{3}$', nullable: true } as const;
/** Up to MAX_METADATA named values (a file's columns beyond the kind's fields). */
export const MAX_METADATA = 100;
const metadata = {
  type: 'object',
  nullable: true,
  required: [],
  maxProperties: MAX_METADATA,
  propertyNames: { maxLength: 200 },
  additionalProperties: {
    anyOf: [{ type: 'string', maxLength: 20_000 }, { type: 'number' }, { type: 'boolean' }],
  },
} as const;

const eventSchema: JSONSchemaType<EventFields> = {
  type: 'object',
  additionalProperties: false,
  required: ['title', 'startsAt'],
  properties: {
    title: text,
    description: { ...longText, minLength: 0, nullable: true },
    venue: optionalText,
    city: optionalText,
    startsAt: { type: 'string', format: 'date-time' },
    endsAt: { type: 'string', format: 'date-time', nullable: true },
    timeZone: { type: 'string', maxLength: 100, nullable: true },
    price,
    currency,
    url,
    tags,
    metadata,
  },
};

const courseSchema: JSONSchemaType<CourseFields> = {
  type: 'object',
  additionalProperties: false,
  required: ['title', 'modules'],
  properties: {
    title: text,
    description: { ...longText, minLength: 0, nullable: true },
    level: optionalText,
    modules: {
      type: 'array',
      maxItems: 100,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['title', 'lessons'],
        properties: {
          title: text,
          lessons: {
            type: 'array',
            maxItems: 200,
            items: {
              type: 'object',
              additionalProperties: false,
              required: ['title'],
              properties: {
                title: text,
                summary: { type: 'string', maxLength: 5000, nullable: true },
              },
            },
          },
        },
      },
    },
    price,
    currency,
    url,
    tags,
    metadata,
  },
};

const articleSchema: JSONSchemaType<ArticleFields> = {
  type: 'object',
  additionalProperties: false,
  required: ['title', 'body'],
  properties: { title: text, body: longText, url, tags, metadata },
};

const documentSchema: JSONSchemaType<DocumentFields> = {
  type: 'object',
  additionalProperties: false,
  required: ['text'],
  properties: {
    text: longText,
    title: optionalText,
    url,
    tags,
    metadata,
  },
};

const ajv = new Ajv({ allErrors: true, strict: false });
addFormats(ajv);

const schemas = {
  events: eventSchema,
  courses: courseSchema,
  articles: articleSchema,
  documents: documentSchema,
};

/** The fields of a kind, as named in documents and import headers. */
export function fieldNames(kind: CollectionKind): string[] {
  return Object.keys(schemas[kind].properties ?? {});
}

const validators = {
  events: ajv.compile(eventSchema),
  courses: ajv.compile(courseSchema),
  articles: ajv.compile(articleSchema),
  documents: ajv.compile(documentSchema),
};

function detailOf(error: ErrorObject, at: string): ErrorDetail {
  const missing =
    error.keyword === 'required'
      ? `/${(error.params as { missingProperty: string }).missingProperty}`
      : '';
  const extra =
    error.keyword === 'additionalProperties'
      ? `/${(error.params as { additionalProperty: string }).additionalProperty}`
      : '';
  const reason = missing
    ? 'is required'
    : extra
      ? 'is not an allowed field'
      : (error.message ?? 'is invalid');
  return { field: `${at}${error.instancePath}${missing}${extra}`, reason };
}

/** Validation problems of one document's fields for a kind, with field paths under `at`. */
export function fieldProblems(kind: CollectionKind, fields: unknown, at: string): ErrorDetail[] {
  const validate = validators[kind];
  if (validate(fields)) return eventProblems(kind, fields as EventFields, at);
  return (validate.errors ?? []).map((e) => detailOf(e, at));
}

/** What a schema cannot say of an event: a real time zone, an end not before its start. */
function eventProblems(kind: CollectionKind, fields: EventFields, at: string): ErrorDetail[] {
  if (kind !== 'events') return [];
  if (fields.timeZone && !IANAZone.isValidZone(fields.timeZone))
    return [{ field: `${at}/timeZone`, reason: 'must be an IANA time zone such as Europe/Lisbon' }];
  if (!fields.endsAt) return [];
  return Date.parse(fields.endsAt) < Date.parse(fields.startsAt)
    ? [{ field: `${at}/endsAt`, reason: 'must not be before startsAt' }]
    : [];
}

/** Throws invalid_request listing every problem (first 50) of a batch. */
export function assertValid(problems: ErrorDetail[], what: string): void {
  if (problems.length === 0) return;
  const shown = problems.slice(0, 50);
  throw new AppError(
    'invalid_request',
    `${problems.length} problem(s) in ${what}; first: ${shown[0]?.field} ${shown[0]?.reason}`,
    shown,
  );
}
