import { describe, expect, it } from 'vitest';
import committed from '../../openapi/openapi.json' with { type: 'json' };

/**
 * Only keywords and formats the standards define belong in the interface description: tools
 * ignore anything else silently (issue 17, finding 3: zod's `startsWith` came out as
 * `format: "starts_with"`, and no validator checked the WWW-Authenticate challenge).
 */

/** JSON Schema 2020-12, every vocabulary of the meta-schema, and the OpenAPI 3.1 base vocabulary. */
const STANDARD_KEYWORDS = new Set([
  // core
  ...['$id', '$schema', '$ref', '$anchor', '$dynamicRef', '$dynamicAnchor', '$vocabulary', '$comment', '$defs'],
  // applicator and unevaluated
  ...[
    'prefixItems',
    'items',
    'contains',
    'additionalProperties',
    'properties',
    'patternProperties',
    'dependentSchemas',
    'propertyNames',
  ],
  ...['if', 'then', 'else', 'allOf', 'anyOf', 'oneOf', 'not', 'unevaluatedItems', 'unevaluatedProperties'],
  // validation
  ...[
    'type',
    'const',
    'enum',
    'multipleOf',
    'maximum',
    'exclusiveMaximum',
    'minimum',
    'exclusiveMinimum',
    'maxLength',
    'minLength',
    'pattern',
  ],
  ...[
    'maxItems',
    'minItems',
    'uniqueItems',
    'maxContains',
    'minContains',
    'maxProperties',
    'minProperties',
    'required',
    'dependentRequired',
  ],
  // meta-data, format annotation, content
  ...[
    'title',
    'description',
    'default',
    'deprecated',
    'readOnly',
    'writeOnly',
    'examples',
    'format',
    'contentEncoding',
    'contentMediaType',
    'contentSchema',
  ],
  // OpenAPI 3.1's Schema Object
  ...['discriminator', 'xml', 'externalDocs', 'example'],
]);

/** JSON Schema 2020-12 validation, section 7.3, and the data type formats of OpenAPI 3.1 (section 4.2). */
const STANDARD_FORMATS = new Set([
  ...['date-time', 'date', 'time', 'duration', 'email', 'idn-email', 'hostname', 'idn-hostname', 'ipv4', 'ipv6'],
  ...[
    'uri',
    'uri-reference',
    'iri',
    'iri-reference',
    'uuid',
    'uri-template',
    'json-pointer',
    'relative-json-pointer',
    'regex',
  ],
  ...['int32', 'int64', 'float', 'double', 'password'],
]);

const SCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'dependentSchemas'];
const SCHEMA_VALUES = [
  'items',
  'contains',
  'additionalProperties',
  'propertyNames',
  'if',
  'then',
  'else',
  'not',
  'unevaluatedItems',
  'unevaluatedProperties',
  'contentSchema',
];
const SCHEMA_LISTS = ['prefixItems', 'allOf', 'anyOf', 'oneOf'];

type Json = Record<string, any>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Every Schema Object of an OpenAPI document, with where it is: the named schemas and every `schema` of a parameter, header or media type. */
function schemaRoots(document: Json): [string, Json][] {
  const roots: [string, Json][] = Object.entries<Json>(document.components?.schemas ?? {}).map(([name, schema]) => [
    `/components/schemas/${name}`,
    schema,
  ]);
  const walk = (node: unknown, at: string): void => {
    if (Array.isArray(node))
      node.forEach((item, index) => {
        walk(item, `${at}/${index}`);
      });
    if (!isObject(node)) return;
    for (const [key, value] of Object.entries(node)) {
      if (at === '/components' && key === 'schemas') continue;
      if (key === 'schema' && isObject(value)) roots.push([`${at}/schema`, value]);
      else walk(value, `${at}/${key}`);
    }
  };
  walk(document, '');
  return roots;
}

/** What is not standard in a schema and its subschemas: `<where>: keyword <name>` or `<where>: format <name>`. */
function nonStandard(schema: Json, at: string): string[] {
  const found: string[] = [];
  for (const [keyword, value] of Object.entries(schema)) {
    if (!STANDARD_KEYWORDS.has(keyword)) found.push(`${at}: keyword ${keyword}`);
    if (keyword === 'format' && !STANDARD_FORMATS.has(value)) found.push(`${at}: format ${value}`);
    if (SCHEMA_MAPS.includes(keyword))
      for (const [name, sub] of Object.entries<Json>(value))
        found.push(...nonStandard(sub, `${at}/${keyword}/${name}`));
    if (SCHEMA_VALUES.includes(keyword) && isObject(value)) found.push(...nonStandard(value, `${at}/${keyword}`));
    if (SCHEMA_LISTS.includes(keyword))
      (value as Json[]).forEach((sub, index) => {
        found.push(...nonStandard(sub, `${at}/${keyword}/${index}`));
      });
  }
  return found;
}

const nonStandardIn = (document: Json) => schemaRoots(document).flatMap(([at, schema]) => nonStandard(schema, at));

describe('the interface description uses only standard keywords and formats', () => {
  it('in every schema: the named ones and those of every parameter, header and body (finding 3)', () => {
    const roots = schemaRoots(committed);
    // The walk reaches the kinds of schema there are: named, parameter, header, body.
    expect(roots.map(([at]) => at)).toEqual(
      expect.arrayContaining([
        '/components/schemas/NewPet',
        '/components/headers/WWW-Authenticate/schema',
        '/paths//pets/get/parameters/0/schema',
        '/paths//pets/post/requestBody/content/application/json/schema',
      ]),
    );
    expect(nonStandardIn(committed)).toEqual([]);
  });

  it('finds a format or a keyword no standard defines, at any depth (so the check above can fail)', () => {
    const planted = {
      components: {
        schemas: { Named: { type: 'object', properties: { a: { anyOf: [{ type: 'string', startsWith: 'x' }] } } } },
        headers: { Challenge: { schema: { type: 'string', format: 'starts_with' } } },
      },
      paths: {
        '/x': {
          get: {
            parameters: [
              { name: 'n', in: 'query', schema: { type: 'integer', format: 'int64', items: { format: 'integer' } } },
            ],
          },
        },
      },
    };
    expect(nonStandardIn(planted)).toEqual([
      '/components/schemas/Named/properties/a/anyOf/0: keyword startsWith',
      '/components/headers/Challenge/schema: format starts_with',
      '/paths//x/get/parameters/0/schema/items: format integer',
    ]);
  });
});
