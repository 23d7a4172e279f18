import * as z from 'zod/mini';
import { describe, expect, it } from 'vitest';
import { described, describedCopy } from '../../../../shared/pets/describe';

describe('schema descriptions', () => {
  it("describe the schema itself, once: a second description of it is refused, so one place cannot rewrite another's words", () => {
    const schema = z.string();
    expect(described(schema, { description: 'first' })).toBe(schema);
    expect(z.globalRegistry.get(schema)).toEqual({ description: 'first' });
    expect(() => described(schema, { description: 'second' })).toThrow('describe a copy');
    expect(z.globalRegistry.get(schema)).toEqual({ description: 'first' });
  });

  it("describe a copy for a schema used elsewhere (it keeps the original's words and adds its own), leaving the original as it was", () => {
    const shared = described(z.int(), { format: 'int64' });
    const copy = describedCopy(shared, { description: 'a category' });
    expect(copy).not.toBe(shared);
    expect(z.globalRegistry.get(copy)).toEqual({ format: 'int64', description: 'a category' });
    expect(z.globalRegistry.get(shared)).toEqual({ format: 'int64' });
    expect(copy['~standard'].validate(1.5)).toEqual(shared['~standard'].validate(1.5));
  });
});
