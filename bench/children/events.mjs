// API Gateway REST proxy events for the bench's cases, the same for ours and the baseline.
import { createHash, randomUUID } from 'node:crypto';

let sequence = 0;

export const REFUSED_ADDRESS = '192.0.2.99';

/** Limits no run of the bench can reach, so that every request is admitted. */
export const BENCH_LIMITS = { perMinute: 100_000_000, perDay: 100_000_000 };

/** `requestContext.authorizer` as API Gateway passes it once the authorizer allowed the key. */
function authorizerContext(key) {
  const keyId = createHash('sha256').update(key).digest('hex').slice(0, 16);
  return { principalId: keyId, keyId, plan: 'enterprise', perMinute: String(BENCH_LIMITS.perMinute), perDay: String(BENCH_LIMITS.perDay) };
}

export function lambdaContext() {
  const deadline = Date.now() + 10_000;
  return {
    functionName: 'bench',
    awsRequestId: `bench-${++sequence}`,
    getRemainingTimeInMillis: () => deadline - Date.now(),
    callbackWaitsForEmptyEventLoop: false,
  };
}

export function eventFor(name, { key, petId = 1 } = {}) {
  const headers = { Host: 'bench.example.com', 'X-Forwarded-Proto': 'https' };
  if (name !== 'unauthorized') headers.Authorization = `Bearer ${name === 'authorizeUnknown' || name === 'authorizeRefused' ? `unknown-${sequence}` : key}`;
  const base = {
    headers,
    multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, [v]])),
    pathParameters: null,
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    stageVariables: null,
    body: null,
    isBase64Encoded: false,
    requestContext: {
      requestId: `req-${++sequence}`,
      domainName: 'bench.example.com',
      stage: 'v1',
      // The refused case comes from an address that has used up its allowance (the parity test fills it).
      identity: { sourceIp: name === 'authorizeRefused' ? REFUSED_ADDRESS : '192.0.2.10' },
      // Without it, the function was not reached through the authorizer: the 'unauthorized' case.
      ...(name === 'unauthorized' || name.startsWith('authorize') ? {} : { authorizer: authorizerContext(key) }),
    },
  };
  const query = (params) => ({ queryStringParameters: params, multiValueQueryStringParameters: Object.fromEntries(Object.entries(params).map(([k, v]) => [k, [v]])) });
  switch (name) {
    case 'listPets':
      return { ...base, httpMethod: 'GET', resource: '/pets', path: '/pets', ...query({ limit: '20' }) };
    case 'invalid':
      return { ...base, httpMethod: 'GET', resource: '/pets', path: '/pets', ...query({ limit: '0' }) };
    case 'unauthorized':
      return { ...base, httpMethod: 'GET', resource: '/pets', path: '/pets', ...query({ limit: '20' }) };
    case 'getPet':
      return { ...base, httpMethod: 'GET', resource: '/pets/{petId}', path: `/pets/${petId}`, pathParameters: { petId: String(petId) } };
    case 'createPet':
    case 'createPetWithKey': {
      // With a key: a fresh one per request (a first use, the common case).
      const withType = { ...headers, 'Content-Type': 'application/json', ...(name === 'createPetWithKey' ? { 'Idempotency-Key': randomUUID() } : {}) };
      return {
        ...base,
        headers: withType,
        multiValueHeaders: Object.fromEntries(Object.entries(withType).map(([k, v]) => [k, [v]])),
        httpMethod: 'POST',
        resource: '/pets',
        path: '/pets',
        body: JSON.stringify({ name: `Bench ${sequence}`, categoryId: 3, status: 'available' }),
      };
    }
    case 'authorize':
    case 'authorizeUnknown':
    case 'authorizeRefused': {
      // The REQUEST authorizer's event: the method request without its body, and the method's ARN.
      const { body: _, isBase64Encoded: __, ...request } = base;
      return { ...request, type: 'REQUEST', methodArn: 'arn:aws:execute-api:eu-west-1:123456789012:bench/v1/GET/pets', httpMethod: 'GET', resource: '/pets', path: '/v1/pets' };
    }
    default:
      throw new Error(`no event for ${name}`);
  }
}

/** The function a case goes to. */
export const FUNCTION_OF = {
  listPets: 'listPets',
  createPet: 'createPet',
  createPetWithKey: 'createPet',
  getPet: 'getPet',
  invalid: 'listPets',
  unauthorized: 'listPets',
  authorize: 'authorizer',
  authorizeUnknown: 'authorizer',
  authorizeRefused: 'authorizer',
};
/** For the authorizer: 200 for an Allow, 401 for its "Unauthorized", 429 for a Deny (see `invoke`). */
export const EXPECTED_STATUS = { listPets: 200, createPet: 201, createPetWithKey: 201, getPet: 200, invalid: 400, unauthorized: 401, authorize: 200, authorizeUnknown: 401, authorizeRefused: 429 };

/** Invokes a handler; an authorizer's answer is told as the status API Gateway would then answer with. */
export async function invoke(handler, event, context) {
  try {
    const result = await handler(event, context);
    if (result.statusCode !== undefined) return result;
    return { statusCode: result.policyDocument?.Statement?.[0]?.Effect === 'Allow' ? 200 : 429, body: JSON.stringify(result) };
  } catch (error) {
    if (error instanceof Error && error.message === 'Unauthorized') return { statusCode: 401, body: 'Unauthorized' };
    throw error;
  }
}

export function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}
