/**
 * chai 6 is ESM-only. Node 20.19+ require()s it fine, but TypeScript's module "node16" rejects a
 * static import of ESM from CommonJS (TS1479), so the tests load it through require with its types.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
export const { expect } = require('chai') as typeof import('chai', {
  with: { 'resolution-mode': 'import' },
});
