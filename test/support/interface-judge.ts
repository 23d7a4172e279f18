import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import Decimal from 'decimal.js';
import { parse as parseLosslessly } from 'lossless-json';
import { standardAjv } from './standard-ajv';

/**
 * What the interface description says of a request, decided the way a standard tool in front of
 * the API would (a validating proxy, a gateway, a generated form), from the served document
 * alone: ajv for JSON Schema 2020-12 in strict mode, with only the standard formats.
 *
 * - A JSON body is validated as parsed (a leading byte order mark ignored, as RFC 8259 allows),
 *   with no coercion, and its numbers as written, as JSON Schema judges them: `1.0` and `20E-1`
 *   are integers, `0.99999999999999999` is not, although `JSON.parse` rounds it to 1. The text is
 *   read by lossless-json, which keeps each number's digits, and decimal.js says whether they
 *   write an integer; one that does not becomes NaN, a number ajv takes for no integer.
 * - Parameters arrive as text. A value of an integer or number parameter is read as the number it
 *   denotes when it denotes a finite one (`7`, `07`, ` 7` and `7.0` are all 7), as ajv's
 *   `coerceTypes` reads it in Fastify or express-openapi-validator; but `Infinity` and `1e400`
 *   stay text, where ajv would let an infinite number pass every bound. A parameter given twice
 *   is a list (OpenAPI's form style), and one the operation does not declare is refused: the
 *   document's introduction says both are refused.
 *
 * Each decision is the list of fields the document refuses, named as the service's 400 names
 * them (`body.name`, `query.limit`, `path.petId`); an empty list means the document allows it.
 */
export interface InterfaceJudge {
  /** The body of POST /pets, as JSON text. */
  newPet(text: string): string[];
  /** The query of GET /pets. */
  listQuery(query: URLSearchParams): string[];
  /** The decoded petId segment of GET /pets/{petId}. */
  petIdPath(segment: string): string[];
}

// biome-ignore lint/suspicious/noExplicitAny: the interface document's JSON, read member by member
type Json = Record<string, any>;

const DOCUMENT_ID = 'served-openapi.json';
// Cannot occur inside a string of the JSON text (its quotes would be escaped), only as a reference.
const COMPONENT_REF = '"$ref":"#/components/schemas/';

function validatorFor(document: Json) {
  const ajv = standardAjv({ strict: true, allErrors: true });
  // The document itself is no schema (strict mode refuses its `openapi`, `paths`...): its named
  // schemas become the $defs of one that is.
  ajv.addSchema({
    $id: DOCUMENT_ID,
    $defs: JSON.parse(JSON.stringify(document.components.schemas).replaceAll(COMPONENT_REF, '"$ref":"#/$defs/')),
  });
  return ajv;
}

/** A schema of the document, its references to the named schemas made absolute, so that it compiles on its own. */
function absolute(schema: unknown): Json {
  return JSON.parse(JSON.stringify(schema).replaceAll(COMPONENT_REF, `"$ref":"${DOCUMENT_ID}#/$defs/`)) as Json;
}

interface Parameters {
  readonly schema: Json;
  /** The declared parameters whose values are numbers. */
  readonly numeric: ReadonlySet<string>;
}

/** An object schema of an operation's parameters in one place (`in`), unknown names refused. */
function parameters(document: Json, operation: Json, place: 'query' | 'path'): Parameters {
  const declared = ((operation.parameters ?? []) as Json[]).filter((parameter) => parameter.in === place);
  const typeOf = (schema: Json): unknown =>
    schema.$ref === undefined
      ? schema.type
      : document.components.schemas[String(schema.$ref).split('/').at(-1) as string]?.type;
  return {
    schema: {
      type: 'object',
      properties: Object.fromEntries(declared.map((parameter) => [parameter.name, absolute(parameter.schema)])),
      required: declared.filter((parameter) => parameter.required === true).map((parameter) => parameter.name),
      additionalProperties: false,
    },
    numeric: new Set(
      declared
        .filter((parameter) => ['integer', 'number'].includes(typeOf(parameter.schema) as string))
        .map((parameter) => parameter.name),
    ),
  };
}

/** The number a text denotes, when it denotes a finite one; otherwise the text itself. */
function readNumber(text: string): number | string {
  const number = Number(text);
  return text.trim() !== '' && Number.isFinite(number) ? number : text;
}

/** OpenAPI's form style: a name given once is its value, given more often a list of them; numbers read as above. */
function parameterInstance(values: Iterable<[string, string]>, numeric: ReadonlySet<string>): Json {
  const byName = new Map<string, (number | string)[]>();
  for (const [name, text] of values)
    byName.set(name, [...(byName.get(name) ?? []), numeric.has(name) ? readNumber(text) : text]);
  const instance: Json = {};
  for (const [name, list] of byName) {
    // defineProperty: a plain assignment of `__proto__` would set the prototype.
    Object.defineProperty(instance, name, {
      value: list.length === 1 ? list[0] : list,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return instance;
}

/** The fields ajv's errors are about, as the service names them: `<part>.<name>...`, or `<part>` for the whole. */
function refusedFields(part: string, errors: ErrorObject[] | null | undefined): string[] {
  const fields = new Set<string>();
  for (const error of errors ?? []) {
    const pointer =
      error.keyword === 'required'
        ? `${error.instancePath}/${error.params.missingProperty}`
        : error.keyword === 'additionalProperties'
          ? `${error.instancePath}/${error.params.additionalProperty}`
          : error.instancePath;
    const names =
      pointer === ''
        ? []
        : pointer
            .slice(1)
            .split('/')
            .map((name) => name.replaceAll('~1', '/').replaceAll('~0', '~'));
    fields.add([part, ...names].join('.'));
  }
  return [...fields];
}

const BYTE_ORDER_MARK = '\ufeff';

/** A JSON number's text as JSON Schema reads it: an integer when its decimal value is one (NaN: no integer). */
function numberAsWritten(text: string): number {
  const number = new Decimal(text);
  return number.isInteger() ? Number(text) : number.toNumber() % 1 === 0 ? Number.NaN : number.toNumber();
}

export function interfaceJudge(document: Json): InterfaceJudge {
  const ajv = validatorFor(document);
  const createPet = document.paths['/pets'].post as Json;
  const newPet = ajv.compile(absolute(createPet.requestBody.content['application/json'].schema));
  const query = parameters(document, document.paths['/pets'].get as Json, 'query');
  const path = parameters(document, document.paths['/pets/{petId}'].get as Json, 'path');
  const listQuery = ajv.compile(query.schema);
  const petIdPath = ajv.compile(path.schema);

  const decide = (part: string, validate: ValidateFunction, instance: unknown): string[] =>
    validate(instance) ? [] : refusedFields(part, validate.errors);
  return {
    newPet(text) {
      const json = text.startsWith(BYTE_ORDER_MARK) ? text.slice(1) : text;
      let value: unknown;
      try {
        value = JSON.parse(json);
      } catch {
        return ['body'];
      }
      // lossless-json refuses a member name given twice, which a JSON reader keeps (the last one):
      // that text's numbers are taken as JSON.parse read them.
      try {
        value = parseLosslessly(json, null, numberAsWritten);
      } catch (error) {
        if (!String(error).includes('Duplicate key')) throw error;
      }
      return decide('body', newPet, value);
    },
    listQuery: (values) => decide('query', listQuery, parameterInstance(values, query.numeric)),
    petIdPath: (segment) => decide('path', petIdPath, parameterInstance([['petId', segment]], path.numeric)),
  };
}
