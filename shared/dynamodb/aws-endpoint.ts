/**
 * Whether a DynamoDB endpoint is AWS's own (`https://dynamodb.eu-west-1.amazonaws.com`, a VPC
 * endpoint, the China regions' `amazonaws.com.cn`, the dual-stack `api.aws`) rather than DynamoDB
 * Local or a stand-in in front of one. AWS's take the usual credentials; DynamoDB Local takes
 * made-up ones, whose access key picks its database.
 */
export function isAwsEndpoint(endpoint: string): boolean {
  return URL.canParse(endpoint) && /(^|\.)(amazonaws\.com(\.cn)?|api\.aws)$/i.test(new URL(endpoint).hostname);
}
