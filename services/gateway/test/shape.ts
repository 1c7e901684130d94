import { expect } from 'chai';
import { compileSchema } from '../src/schemas/validator';
import type { JsonSchema } from '../src/schemas/common';

/** Asserts a body against the same schema the OpenAPI document publishes for it. */
export function expectShape(body: unknown, schema: JsonSchema): void {
  const validate = compileSchema(schema);
  expect(validate(structuredClone(body)), JSON.stringify(validate.errors)).to.equal(true);
}
