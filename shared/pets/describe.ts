import * as z from 'zod/mini';

/**
 * Metadata for the interface description (zod's global registry, which zod-openapi reads), on a
 * copy, so one schema can be described differently where it is used.
 */
export function described<T extends z.ZodMiniType>(schema: T, meta: z.core.GlobalMeta): T {
  const copy = schema.clone();
  z.globalRegistry.add(copy, meta);
  return copy;
}

/**
 * For the interface description (zod-openapi's `override`): a parameter that arrives as text is
 * described as what it means to a client, replacing the string schema zod would describe.
 */
export function describeAs(meaning: Record<string, unknown>) {
  return function replaceSchema({ jsonSchema }: { jsonSchema: Record<string, unknown> }): void {
    for (const key of Object.keys(jsonSchema)) delete jsonSchema[key];
    Object.assign(jsonSchema, meaning);
  };
}
