import { Ajv2020, type Options } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

// ajv-formats is CommonJS with a default export; under ESM interop it may sit one level down.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Ajv2020,
) => Ajv2020;

/** ajv for JSON Schema 2020-12 with the standard formats: ajv-formats holds those of JSON Schema and of OpenAPI (`int64`...). */
export function standardAjv(options: Options): Ajv2020 {
  const ajv = new Ajv2020(options);
  addFormats(ajv);
  return ajv;
}
