import type { ValidateFunction } from 'ajv/dist/2020.js';
import document from '../../openapi/openapi.json' with { type: 'json' };
import { OPERATION_IDS, OPERATIONS } from '../../functions/table';
import { API_BASE_PATH, DOCUMENTATION_ROUTES } from '../../shared/http/routes';
import { standardAjv } from './standard-ajv';

/**
 * Every HTTP response the tests receive is checked against the interface description
 * (openapi/openapi.json, itself checked to be a fresh generation from the zod schemas): the
 * status must be declared for the operation, the body must match its schema, and every header
 * the document requires must be there and match its schema. So an undeclared status or a drifted
 * field fails a test by itself, whatever the test asserts.
 */

/** Who answered: an operation's function, or the gateway in front of it (API Gateway, or the local stand-in). */
export type Responder = 'function' | 'gateway';

export interface ObservedResponse {
  readonly method: string;
  readonly url: string;
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
}

// biome-ignore lint/suspicious/noExplicitAny: the interface document's JSON, read member by member
type Json = Record<string, any>;
const spec = document as Json;

const ajv = standardAjv({ strict: false, allErrors: true });
ajv.addFormat('int64', { type: 'number', validate: (value: number) => Number.isSafeInteger(value) });
ajv.addSchema(spec, 'openapi.json');

const validators = new Map<string, ValidateFunction>();
function validatorAt(pointer: string[]): ValidateFunction {
  const ref = `openapi.json#/${pointer.map((part) => part.replaceAll('~', '~0').replaceAll('/', '~1')).join('/')}`;
  let validate = validators.get(ref);
  if (validate === undefined) {
    validate = ajv.compile({ $ref: ref });
    validators.set(ref, validate);
  }
  return validate;
}

function resolve(node: Json): { node: Json; pointer: string[] } | undefined {
  const ref = node.$ref as string | undefined;
  if (ref === undefined) return undefined;
  const pointer = ref
    .replace(/^#\//, '')
    .split('/')
    .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'));
  return { node: pointer.reduce<Json>((at, part) => at[part], spec), pointer };
}

/** A path template (`/pets/{petId}`) as a pattern matching the concrete paths it stands for. */
const pathPattern = (template: string) =>
  new RegExp(`^${template.replaceAll('.', '\\.').replace(/\{[^}]+\}/g, '[^/]+')}$`);

const templates = Object.keys(spec.paths as Json).map((template) => ({ template, pattern: pathPattern(template) }));

const DOCUMENTATION_PATHS = Object.values(DOCUMENTATION_ROUTES).map((route) =>
  pathPattern(`${API_BASE_PATH}${route.path}`),
);
/** The declared operations (functions/table.ts), to tell a stale committed document from a wrong answer. */
const DECLARED_ROUTES = OPERATION_IDS.map((operationId) => ({
  operationId,
  method: OPERATIONS[operationId].route.method,
  pattern: pathPattern(OPERATIONS[operationId].route.path),
}));

function fail(response: ObservedResponse, problem: string): never {
  throw new Error(
    `${response.method} ${new URL(response.url).pathname} answered ${response.status}, against the interface description: ${problem}`,
  );
}

/** Checks one response; throws, naming the problem, when the document does not describe it. */
export function checkResponse(response: ObservedResponse, responder: Responder = 'function'): void {
  const pathname = new URL(response.url).pathname;
  if (DOCUMENTATION_PATHS.some((pattern) => pattern.test(pathname))) return;
  const path = pathname.startsWith(API_BASE_PATH) ? pathname.slice(API_BASE_PATH.length) : undefined;
  const template =
    path === undefined ? undefined : templates.find((candidate) => candidate.pattern.test(path))?.template;
  const operation =
    template === undefined ? undefined : (spec.paths[template][response.method.toLowerCase()] as Json | undefined);

  const declaredHere =
    path === undefined
      ? undefined
      : DECLARED_ROUTES.find((route) => route.method === response.method && route.pattern.test(path));
  if (operation === undefined && declaredHere !== undefined && responder !== 'gateway') {
    fail(
      response,
      `${declaredHere.operationId} is declared (functions/<operationId>/operation.ts) but not in the committed openapi/openapi.json: run npm run generate`,
    );
  }
  if (operation === undefined || responder === 'gateway') {
    // No operation answers this (or the gateway answered before any function ran): an Error body.
    checkJsonBody(response, ['components', 'schemas', 'Error']);
    return;
  }
  const pointer = ['paths', template as string, response.method.toLowerCase(), 'responses', String(response.status)];
  const declared = operation.responses[String(response.status)] as Json | undefined;
  if (declared === undefined) fail(response, `status ${response.status} is not declared for ${operation.operationId}`);

  for (const [name, header] of Object.entries((declared.headers ?? {}) as Json)) {
    const resolved = resolve(header as Json);
    const definition = resolved?.node ?? (header as Json);
    const schemaPointer =
      resolved === undefined ? [...pointer, 'headers', name, 'schema'] : [...resolved.pointer, 'schema'];
    const value = response.headers.get(name);
    if (value === null) {
      if (definition.required === true) fail(response, `the required header ${name} is missing`);
      continue;
    }
    const schema = definition.schema as Json;
    const typed = schema.type === 'integer' && /^-?[0-9]+$/.test(value) ? Number(value) : value;
    const validate = validatorAt(schemaPointer);
    if (!validate(typed)) fail(response, `header ${name}: ${JSON.stringify(value)} ${ajv.errorsText(validate.errors)}`);
  }
  const content = declared.content as Json | undefined;
  // A 204 has no content whatever a document says (RFC 9110).
  if (content === undefined || response.status === 204) {
    checkNoBody(response);
    return;
  }
  checkJsonBody(response, [...pointer, 'content', 'application/json', 'schema']);
}

/**
 * A response declared without content (a 204): nothing to parse, and nothing that says there is
 * something: no body, no Content-Type, and no Content-Length (RFC 9110, 8.6: a server MUST NOT
 * send one with a 204). In AWS, API Gateway may add a Content-Type to a proxy answer without one:
 * this checks the local server's answers.
 */
function checkNoBody(response: ObservedResponse): void {
  if (response.text !== '') fail(response, `a body where none is declared: ${response.text.slice(0, 300)}`);
  const contentType = response.headers.get('content-type');
  if (contentType !== null) fail(response, `Content-Type ${JSON.stringify(contentType)} where no content is declared`);
  const contentLength = response.headers.get('content-length');
  if (contentLength !== null) fail(response, `Content-Length ${contentLength} where no content is declared`);
}

function checkJsonBody(response: ObservedResponse, schemaPointer: string[]): void {
  const contentType = response.headers.get('content-type') ?? '';
  if (!/^application\/json\b/.test(contentType))
    fail(response, `Content-Type ${JSON.stringify(contentType)} where application/json is declared`);
  let body: unknown;
  try {
    body = JSON.parse(response.text);
  } catch {
    fail(response, 'the body is not JSON');
  }
  const validate = validatorAt(schemaPointer);
  if (!validate(body)) fail(response, `body ${ajv.errorsText(validate.errors)}: ${response.text.slice(0, 300)}`);
}
