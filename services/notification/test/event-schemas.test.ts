import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { createEvent, validateEvent } from '@switchyard/shared';
import { expect } from './chai';

// dist/test -> repository root.
const EVENTS_DIR = path.resolve(__dirname, '../../../../deploy/events');

function schemaValidator(type: string) {
  const ajv = new Ajv({ allErrors: true });
  addFormats(ajv);
  return ajv.compile(
    JSON.parse(
      fs.readFileSync(path.join(EVENTS_DIR, 'schemas', `${type}.schema.json`), 'utf8'),
    ) as object,
  );
}

function sharedAccepts(event: unknown): boolean {
  try {
    validateEvent(event);
    return true;
  } catch {
    return false;
  }
}

describe('exported event schemas (deploy/events)', () => {
  it('are up to date with shared/src/events/schemas.ts', () => {
    const output = execFileSync(process.execPath, [
      path.join(EVENTS_DIR, 'export-schemas.js'),
      '--check',
    ]).toString();
    expect(output).to.match(/up to date/);
  });

  it('accept and refuse the same envelopes as the services do', () => {
    const paid = createEvent('invoice.paid', {
      source: 'billing',
      organization: 'org_a',
      data: { invoiceId: 'inv_1', amount: 1.5, currency: 'EUR' },
    });
    const failed = createEvent('invoice.failed', {
      source: 'billing',
      organization: 'org_a',
      data: { invoiceId: 'inv_1', amount: 1, currency: 'USD', failureReason: 'card_declined' },
    });
    const data = createEvent('data.updated', {
      source: 'ingest',
      organization: 'org_a',
      data: { dataset: 'd', count: 2 },
    });
    const cases: Array<[string, unknown]> = [
      ['invoice.paid', paid],
      ['invoice.paid', { ...paid, data: { ...paid.data, currency: 'eur' } }],
      ['invoice.paid', { ...paid, data: { ...paid.data, extra: 1 } }],
      ['invoice.paid', { ...paid, time: 'yesterday' }],
      ['invoice.failed', failed],
      ['invoice.failed', { ...failed, data: { ...failed.data, failureReason: '' } }],
      ['data.updated', data],
      ['data.updated', { ...data, data: { dataset: 'd', count: -1 } }],
      ['data.updated', { ...data, organization: '' }],
    ];
    for (const [type, event] of cases) {
      expect(schemaValidator(type)(event), JSON.stringify(event)).to.equal(sharedAccepts(event));
    }
  });
});
