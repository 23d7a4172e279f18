import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

/**
 * Whether the interface description allows a request, decided the way a standard tool in front of
 * the API would decide it (a validating proxy, a gateway, a generated form), from the served
 * document alone: ajv for JSON Schema 2020-12 in strict mode, with only the standard formats
 * (ajv-formats: those of JSON Schema and of OpenAPI).
 *
 * - A JSON body is validated as parsed, with no coercion.
 * - Parameters arrive as text and are read as a validating proxy reads them: ajv's `coerceTypes`
 *   (what Fastify and express-openapi-validator use), so `7`, `007` and ` 7` all become the number
 *   7 for an integer parameter. A parameter given twice is an array (OpenAPI's form style), and a
 *   parameter the operation does not declare is refused, as its description says.
 */
export interface InterfaceJudge {
  /** The body of POST /pets, as JSON text. */
  allowsNewPet(text: string): boolean;
  /** The query of GET /pets. */
  allowsListQuery(query: URLSearchParams): boolean;
  /** The (decoded) petId segment of GET /pets/{petId}. */
  allowsPetId(segment: string): boolean;
  /** The last decision's validation errors, for messages. */
  readonly lastErrors: string;
}

type Json = Record<string, any>;

// ajv-formats is CommonJS with a default export; under ESM interop it may sit one level down.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => Ajv2020;

const DOCUMENT_ID = 'served-openapi.json';

function validatorFor(document: Json, coerceTypes: boolean): Ajv2020 {
  const ajv = new Ajv2020({ strict: true, allErrors: true, coerceTypes });
  addFormats(ajv);
  // The document itself is no schema (strict mode refuses its `openapi`, `paths`...): its named
  // schemas become the $defs of one that is.
  ajv.addSchema({ $id: DOCUMENT_ID, $defs: JSON.parse(JSON.stringify(document.components.schemas).replaceAll(COMPONENT_REF, '"$ref":"#/$defs/')) });
  return ajv;
}

const COMPONENT_REF = '"$ref":"#/components/schemas/';

/** A schema of the document, its references to the named schemas made absolute, so that it compiles on its own. */
function absolute(schema: unknown): Json {
  return JSON.parse(JSON.stringify(schema).replaceAll(COMPONENT_REF, `"$ref":"${DOCUMENT_ID}#/$defs/`)) as Json;
}

/** An object schema of an operation's parameters in one place (`in`), unknown names refused. */
function parametersSchema(operation: Json, place: 'query' | 'path'): Json {
  const parameters = ((operation.parameters ?? []) as Json[]).filter((parameter) => parameter.in === place);
  return {
    type: 'object',
    properties: Object.fromEntries(parameters.map((parameter) => [parameter.name, absolute(parameter.schema)])),
    required: parameters.filter((parameter) => parameter.required === true).map((parameter) => parameter.name),
    additionalProperties: false,
  };
}

/** OpenAPI's form style: a name given once is its value, given more often an array of them. */
function queryInstance(query: URLSearchParams): Json {
  const instance: Json = {};
  for (const name of new Set(query.keys())) {
    const values = query.getAll(name);
    Object.defineProperty(instance, name, { value: values.length === 1 ? values[0] : values, enumerable: true, writable: true, configurable: true });
  }
  return instance;
}

export function interfaceJudge(document: Json): InterfaceJudge {
  const plain = validatorFor(document, false);
  const coercing = validatorFor(document, true);
  const createPet = document.paths['/pets'].post as Json;
  const newPet = plain.compile(absolute(createPet.requestBody.content['application/json'].schema));
  const listQuery = coercing.compile(parametersSchema(document.paths['/pets'].get as Json, 'query'));
  const petIdPath = coercing.compile(parametersSchema(document.paths['/pets/{petId}'].get as Json, 'path'));
  let lastErrors = '';

  const decide = (validate: ValidateFunction, instance: unknown): boolean => {
    const allowed = validate(instance);
    lastErrors = allowed ? '' : plain.errorsText(validate.errors);
    return allowed;
  };
  return {
    allowsNewPet(text) {
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        lastErrors = 'not JSON';
        return false;
      }
      return decide(newPet, value);
    },
    allowsListQuery: (query) => decide(listQuery, queryInstance(query)),
    allowsPetId: (segment) => decide(petIdPath, { petId: segment }),
    get lastErrors() {
      return lastErrors;
    },
  };
}
