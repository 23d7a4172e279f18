import type { APIGatewayAuthorizerResult, APIGatewayTokenAuthorizerEvent } from 'aws-lambda';
import { hashApiKey, keyIdOf } from '../shared/auth/api-key-hash';
import { readBearer } from '../shared/auth/bearer';

/**
 * API Gateway's TOKEN authorizer: takes the bearer key from `Authorization` and hands it to API
 * Gateway as the usage identifier key, so the usage plans meter and check it (the API's key
 * source is AUTHORIZER). A missing or malformed credential is refused here with 401; an unknown
 * or revoked key is refused by API Gateway itself (INVALID_API_KEY). The policy covers the whole
 * stage, because API Gateway caches the answer per token across methods.
 */
export const handler = async (event: APIGatewayTokenAuthorizerEvent): Promise<APIGatewayAuthorizerResult> => {
  const credential = readBearer(event.authorizationToken);
  // This exact message is what makes API Gateway answer 401 (gateway response UNAUTHORIZED).
  if (credential.kind !== 'token') throw new Error('Unauthorized');
  const [arn = '', stage = ''] = event.methodArn.split('/');
  return {
    principalId: keyIdOf(hashApiKey(credential.token)),
    usageIdentifierKey: credential.token,
    policyDocument: {
      Version: '2012-10-17',
      Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: `${arn}/${stage}/*/*` }],
    },
  };
};
