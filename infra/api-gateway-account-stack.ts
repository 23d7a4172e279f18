import { RemovalPolicy, Stack, Validations, type StackProps } from 'aws-cdk-lib';
import { CfnAccount } from 'aws-cdk-lib/aws-apigateway';
import { ManagedPolicy, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';

/** `cdk deploy -c setup=account`: the one stack of this app that is not a stage. */
export const ACCOUNT_SETUP_STACK_NAME = 'PetStore-account';

/**
 * API Gateway's one setting per account and region: the role it writes CloudWatch logs with. A
 * REST API stage with access logs cannot be created until it is set, and it is shared by every
 * API of the account, another team's included. So no stage stack touches it: this stack sets it
 * once, before the first stage (skip it when `aws apigateway get-account` already shows a role).
 * Both resources are retained when the stack is deleted: deleting the role would break the access
 * logs of every API in the region.
 */
export class ApiGatewayAccountStack extends Stack {
  constructor(scope: Construct, id: string, props: StackProps = {}) {
    super(scope, id, props);
    const role = new Role(this, 'ApiGatewayLogsRole', {
      assumedBy: new ServicePrincipal('apigateway.amazonaws.com'),
      description:
        "API Gateway writes the access logs of this account's REST APIs with it (set once per account and region).",
      managedPolicies: [ManagedPolicy.fromAwsManagedPolicyName('service-role/AmazonAPIGatewayPushToCloudWatchLogs')],
    });
    role.applyRemovalPolicy(RemovalPolicy.RETAIN);
    Validations.of(role).acknowledge({
      id: 'AwsSolutions::AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
      reason:
        "The role API Gateway itself needs to write any API's logs in this account and region; only API Gateway may assume it. AWS's policy for it allows, on every log group of the account: CreateLogGroup, CreateLogStream, PutLogEvents, DescribeLogGroups, DescribeLogStreams, GetLogEvents and FilterLogEvents.",
    });
    const account = new CfnAccount(this, 'ApiGatewayAccount', { cloudWatchRoleArn: role.roleArn });
    account.applyRemovalPolicy(RemovalPolicy.RETAIN);
  }
}
