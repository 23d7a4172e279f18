import * as z from 'zod/mini';

/**
 * Metadata for the interface description (zod's global registry, which zod-openapi reads), on
 * the schema itself: call it on a schema made for that place. A schema already described is
 * refused, so that one place cannot rewrite another's words: describe a copy (`describedCopy`).
 */
export function described<T extends z.ZodMiniType>(schema: T, meta: z.core.GlobalMeta): T {
  if (z.globalRegistry.has(schema))
    throw new Error('this schema is described already: describe a copy (describedCopy)');
  z.globalRegistry.add(schema, meta);
  return schema;
}

/**
 * A copy of a schema used elsewhere, described for this place (Identifier as a category's id).
 * Only where needed: a copy builds the schema again at every cold start that imports it.
 */
export function describedCopy<T extends z.ZodMiniType>(schema: T, meta: z.core.GlobalMeta): T {
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
