// API Gateway REST proxy events for the bench's cases, the same for ours and the baseline.
let sequence = 0;

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
  if (name !== 'unauthorized') headers.Authorization = `Bearer ${key}`;
  const base = {
    headers,
    multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, [v]])),
    pathParameters: null,
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    stageVariables: null,
    body: null,
    isBase64Encoded: false,
    requestContext: { requestId: `req-${++sequence}`, domainName: 'bench.example.com', stage: 'v1', identity: { sourceIp: '192.0.2.10' } },
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
    case 'createPet': {
      const withType = { ...headers, 'Content-Type': 'application/json' };
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
    default:
      throw new Error(`no event for ${name}`);
  }
}

/** The function a case goes to. */
export const FUNCTION_OF = { listPets: 'listPets', createPet: 'createPet', getPet: 'getPet', invalid: 'listPets', unauthorized: 'listPets' };
export const EXPECTED_STATUS = { listPets: 200, createPet: 201, getPet: 200, invalid: 400, unauthorized: 401 };

export function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}
