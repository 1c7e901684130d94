import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { newId } from '../ids';
import { AppError } from '../errors/app-error';
import { DATA_SCHEMAS, type EventData } from './schemas';
import { EventTypes, type EventType } from './topics';

/** The JSON envelope of every event on the bus. */
export interface EventEnvelope<T extends EventType = EventType> {
  id: string;
  type: T;
  /** The emitting service, e.g. "content". */
  source: string;
  /** ISO 8601 UTC time the event happened. */
  time: string;
  organization: string;
  data: EventData[T];
}

export type AnyEvent = { [K in EventType]: EventEnvelope<K> }[EventType];

export function createEvent<T extends EventType>(
  type: T,
  fields: { source: string; organization: string; data: EventData[T]; id?: string; time?: string },
): EventEnvelope<T> {
  return {
    id: fields.id ?? newId('evt'),
    type,
    source: fields.source,
    time: fields.time ?? new Date().toISOString(),
    organization: fields.organization,
    data: fields.data,
  };
}

const ENVELOPE_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'type', 'source', 'time', 'organization', 'data'],
  properties: {
    id: { type: 'string', minLength: 1, maxLength: 200 },
    type: { type: 'string', enum: Object.values(EventTypes) },
    source: { type: 'string', minLength: 1 },
    time: { type: 'string', format: 'date-time' },
    organization: { type: 'string', minLength: 1 },
    data: { type: 'object' },
  },
} as const;

const ajv = new Ajv({ allErrors: true });
addFormats(ajv);
const validateEnvelopeShape = ajv.compile(ENVELOPE_SCHEMA);
const dataValidators = new Map<string, ValidateFunction>(
  Object.entries(DATA_SCHEMAS).map(([type, schema]) => [type, ajv.compile(schema)]),
);

function describe(errors: ValidateFunction['errors'], prefix: string): string {
  return (errors ?? [])
    .map((e) => `${prefix}${e.instancePath || '/'} ${e.message ?? 'is invalid'}`)
    .join('; ');
}

/** Checks an envelope and its data against the schemas; throws AppError(invalid_request). */
export function validateEvent(candidate: unknown): AnyEvent {
  if (!validateEnvelopeShape(candidate)) {
    throw new AppError(
      'invalid_request',
      `invalid event envelope: ${describe(validateEnvelopeShape.errors, '')}`,
    );
  }
  const envelope = candidate as { type: string; data: unknown };
  const validateData = dataValidators.get(envelope.type);
  if (!validateData || !validateData(envelope.data)) {
    throw new AppError(
      'invalid_request',
      `invalid ${envelope.type} data: ${describe(validateData?.errors, '/data')}`,
    );
  }
  return candidate as AnyEvent;
}

/** Parses and validates raw bytes from the bus. */
export function decodeEvent(raw: Buffer | string): AnyEvent {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString());
  } catch {
    throw new AppError('invalid_request', 'event is not valid JSON');
  }
  return validateEvent(parsed);
}
