#!/usr/bin/env node
/**
 * Writes JSON Schema files for the events other teams publish and the notification service
 * consumes, generated from the TypeScript schemas in shared/src/events/schemas.ts (read from
 * shared/dist: build first with `npx tsc -b shared`).
 *
 *   node deploy/events/export-schemas.js          # (re)write deploy/events/schemas/*.schema.json
 *   node deploy/events/export-schemas.js --check  # exit 1 when a file is missing or stale
 */
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const SHARED_DIST = path.resolve(__dirname, '../../shared/dist/src/events');
const OUT_DIR = path.join(__dirname, 'schemas');
const BASE_ID = 'https://switchyard.dev/schemas/events/';
const DRAFT = 'http://json-schema.org/draft-07/schema#';

/** Events produced by other teams (billing, data) plus the one the notification service acts on. */
const EXPORTED = [
  'invoice.paid',
  'invoice.failed',
  'data.updated',
  'usage.threshold_reached',
  'domain.event',
];

const { DATA_SCHEMAS } = require(path.join(SHARED_DIST, 'schemas.js'));
const { EventTypes, TOPIC_OF } = require(path.join(SHARED_DIST, 'topics.js'));

/** Mirrors ENVELOPE_SCHEMA in shared/src/events/envelope.ts (not exported from shared yet). */
function envelopeProperties(type, data) {
  return {
    id: {
      type: 'string',
      minLength: 1,
      maxLength: 200,
      description: 'Unique event id; consumers deduplicate by it (delivery is at least once).',
    },
    type: type ? { const: type } : { type: 'string', enum: Object.values(EventTypes) },
    source: {
      type: 'string',
      minLength: 1,
      description: 'The emitting service or team, e.g. "billing".',
    },
    time: {
      type: 'string',
      format: 'date-time',
      description: 'ISO 8601 UTC time the event happened.',
    },
    organization: {
      type: 'string',
      minLength: 1,
      description: 'The organization the event belongs to; also the Kafka message key.',
    },
    data: data ?? { type: 'object' },
  };
}

function envelopeSchema() {
  return {
    $schema: DRAFT,
    $id: `${BASE_ID}envelope.schema.json`,
    title: 'Switchyard event envelope',
    description:
      'Every message on the switchyard.*.v1 topics is one JSON envelope, keyed by organization.',
    type: 'object',
    additionalProperties: false,
    required: ['id', 'type', 'source', 'time', 'organization', 'data'],
    properties: envelopeProperties(undefined, undefined),
  };
}

function eventSchema(type) {
  const data = DATA_SCHEMAS[type];
  if (!data) throw new Error(`shared has no schema for ${type}`);
  return {
    $schema: DRAFT,
    $id: `${BASE_ID}${type}.schema.json`,
    title: `${type} event`,
    description: `Topic ${TOPIC_OF[type]}, key = organization. Generated from shared/src/events/schemas.ts; do not edit.`,
    type: 'object',
    additionalProperties: false,
    required: ['id', 'type', 'source', 'time', 'organization', 'data'],
    properties: envelopeProperties(type, data),
  };
}

function files() {
  const out = { 'envelope.schema.json': envelopeSchema() };
  for (const type of EXPORTED) out[`${type}.schema.json`] = eventSchema(type);
  return Object.entries(out).map(([name, schema]) => [
    path.join(OUT_DIR, name),
    `${JSON.stringify(schema, null, 2)}\n`,
  ]);
}

function main() {
  const check = process.argv.includes('--check');
  let stale = 0;
  fs.mkdirSync(OUT_DIR, { recursive: true });
  for (const [file, text] of files()) {
    const current = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined;
    if (current === text) continue;
    if (check) {
      console.error(`stale: ${path.relative(process.cwd(), file)}`);
      stale++;
    } else {
      fs.writeFileSync(file, text);
      console.log(`wrote ${path.relative(process.cwd(), file)}`);
    }
  }
  if (check && stale > 0) process.exit(1);
  if (check) console.log('event schemas are up to date');
}

main();
