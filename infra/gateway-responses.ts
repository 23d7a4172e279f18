import { ResponseType, type RestApi } from 'aws-cdk-lib/aws-apigateway';
import {
  GATEWAY_COMMON_HEADERS,
  GATEWAY_RESPONSES,
  type GatewayResponseType,
  type GatewayValue,
} from '../shared/http/gateway-responses';

/**
 * API Gateway's own answers in our Error shape, declared from the one description the local
 * server answers with too (shared/http/gateway-responses.ts). Header values are mapping
 * expressions: a literal in single quotes, `context.requestId`, or `context.authorizer.<name>`
 * from the authorizer's context; the body template takes `$context...` the same way.
 */
const parameterOf = (value: GatewayValue): string =>
  'literal' in value
    ? `'${value.literal}'`
    : 'request' in value
      ? `context.${value.request}`
      : `context.authorizer.${value.authorizer}`;

/** Inside the JSON string of the body template: literals JSON-escaped, context values as they come. */
const templateValueOf = (value: GatewayValue): string =>
  'literal' in value
    ? JSON.stringify(value.literal).slice(1, -1)
    : 'request' in value
      ? `$context.${value.request}`
      : `$context.authorizer.${value.authorizer}`;

export function addGatewayResponses(api: RestApi): void {
  for (const [type, response] of Object.entries(GATEWAY_RESPONSES) as [
    GatewayResponseType,
    (typeof GATEWAY_RESPONSES)[GatewayResponseType],
  ][]) {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries({ ...GATEWAY_COMMON_HEADERS, ...response.headers }))
      headers[name] = parameterOf(value);
    api.addGatewayResponse(`Gateway${type}`, {
      type: ResponseType.of(type),
      statusCode: String(response.status),
      responseHeaders: headers,
      templates: {
        'application/json': `{"code":"${templateValueOf(response.code)}","message":"${templateValueOf(response.message)}","status":${response.status}}`,
      },
    });
  }
}
