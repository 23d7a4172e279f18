import { AccessLogField, AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';

/**
 * The stage's access log: one JSON line per request, the only API Gateway log of a stage
 * (execution logs are off: infra/pet-store-stack.ts). Besides what was asked and answered, it
 * names the cause of an answer API Gateway gave itself: the gateway response type and message,
 * the authorizer's status and error, the integration's status, error and latency, and the WAF's
 * verdict. Never the key (`$context.identity.apiKey`) nor any header.
 */
export const ACCESS_LOG_FIELDS = {
  requestId: AccessLogField.contextRequestId(),
  ip: AccessLogField.contextIdentitySourceIp(),
  requestTime: AccessLogField.contextRequestTime(),
  httpMethod: AccessLogField.contextHttpMethod(),
  resourcePath: AccessLogField.contextResourcePath(),
  status: AccessLogField.contextStatus(),
  protocol: AccessLogField.contextProtocol(),
  responseLength: AccessLogField.contextResponseLength(),
  responseLatency: AccessLogField.contextResponseLatency(),
  errorType: AccessLogField.contextErrorResponseType(),
  authorizerStatus: AccessLogField.contextAuthorizerIntegrationStatus(),
  authorizerLatency: AccessLogField.contextAuthorizerLatency(),
  authorizerError: AccessLogField.contextAuthorizerError(),
  // Lambda's own status (429: throttled for concurrency), then the status the function answered.
  integrationStatus: AccessLogField.contextIntegrationStatus(),
  functionStatus: '$context.integration.status',
  integrationLatency: AccessLogField.contextIntegrationLatency(),
  integrationError: AccessLogField.contextIntegrationErrorMessage(),
  wafStatus: AccessLogField.contextWafStatus(),
} as const;

/** Every field quoted, but the gateway's message, which API Gateway quotes and escapes itself. */
export const ACCESS_LOG_FORMAT = AccessLogFormat.custom(
  `{${Object.entries(ACCESS_LOG_FIELDS)
    .map(([name, field]) => `"${name}":"${field}"`)
    .join(',')},"errorMessage":${AccessLogField.contextErrorMessageString()}}`,
);
