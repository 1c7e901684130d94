/**
 * chai 6 is ESM-only. Node >= 20.19 require()s ES modules natively, but TypeScript's CommonJS
 * output check (TS1479) still refuses a static import, so the tests load it through here.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const chai = require('chai') as typeof import('chai', { with: { 'resolution-mode': 'import' } });

export const expect = chai.expect;
