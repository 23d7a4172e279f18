import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import document from '../../openapi/openapi.json' with { type: 'json' };
import { REFERENCE_PAGE_CSP, REFERENCE_PAGE_HTML, referenceAsset } from '../../shared/docs/reference-page';
import { clientText, NotFoundError } from '../../shared/errors';
import { toErrorResponse } from '../../shared/http/middleware/error-response';
import { EVERY_ANSWER_HEADERS } from '../../shared/http/every-answer';
import { API_BASE_PATH, DOCUMENTATION_ROUTES } from '../../shared/http/routes';

/**
 * Served with the server it was fetched from first: a relative URL, so the reference page's
 * "Try it out" calls the host and port the reader reached (any stage, any local PORT). The
 * committed file keeps the stage templates and the local default.
 */
const DOCUMENT_BODY = JSON.stringify({
  ...document,
  servers: [
    { url: API_BASE_PATH, description: 'This server: the one this document was served from.' },
    ...document.servers,
  ],
});
/** Public and the same for everyone: caches may keep them a while. */
const CACHE_CONTROL = 'public, max-age=300';

/**
 * GET /v1/openapi.json, /v1/docs and /v1/docs/{asset}, without a key: the interface description
 * (generated from the zod schemas, committed as openapi/openapi.json) and its reference page.
 */
export const handler = async (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => {
  const answer = documentAnswer(event);
  answer.headers ??= {};
  const headers = answer.headers;
  for (const [name, value] of Object.entries(EVERY_ANSWER_HEADERS)) headers[name] = value;
  headers['X-Request-Id'] = event.requestContext?.requestId ?? '';
  return answer;
};

function documentAnswer(event: APIGatewayProxyEvent): APIGatewayProxyResult {
  switch (event.resource) {
    case DOCUMENTATION_ROUTES.openApiDocument.path:
      return {
        statusCode: 200,
        headers: { 'Content-Type': 'application/json', 'Cache-Control': CACHE_CONTROL },
        body: DOCUMENT_BODY,
      };
    case DOCUMENTATION_ROUTES.apiReference.path:
      return {
        statusCode: 200,
        headers: {
          'Content-Type': 'text/html; charset=utf-8',
          'Cache-Control': CACHE_CONTROL,
          'Content-Security-Policy': REFERENCE_PAGE_CSP,
        },
        body: REFERENCE_PAGE_HTML,
      };
    case DOCUMENTATION_ROUTES.apiReferenceAsset.path: {
      const asset = referenceAsset(event.pathParameters?.asset ?? '');
      if (asset !== undefined)
        return {
          statusCode: 200,
          headers: { 'Content-Type': asset.contentType, 'Cache-Control': CACHE_CONTROL },
          body: asset.body,
        };
      break;
    }
  }
  // The path as the client sent it, stage included (event.path is relative to the stage).
  const path = event.requestContext?.path ?? `${API_BASE_PATH}${event.path}`;
  const notFound = toErrorResponse(
    new NotFoundError(`No document answers ${clientText(path)}.`),
    event.requestContext?.requestId ?? '',
  );
  return { ...notFound, headers: { ...notFound.headers, 'Cache-Control': 'no-store' } };
}
