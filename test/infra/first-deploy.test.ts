import { Annotations, Match, type Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCESS_LOG_FIELDS } from '../../infra/access-log';
import { FUNCTION_NAMES, OPERATION_IDS } from '../../functions/table';
import { DOCUMENTATION_ROUTES } from '../../shared/http/routes';
import { idWithPrefix, removeOutdirs, synth, synthAccountSetup } from '../support/synth';

/**
 * Issue 22: what goes wrong after a first deploy into a fresh account that holds both stages.
 * Each point is asserted on both stages' templates.
 */
type Resources = Record<
  string,
  {
    Type: string;
    Properties: Record<string, any>;
    DeletionPolicy?: string;
    UpdateReplacePolicy?: string;
    UpdatePolicy?: Record<string, any>;
  }
>;

const templates = {} as Record<'staging' | 'prod', Template>;
beforeAll(() => {
  templates.staging = synth('staging').template;
  templates.prod = synth('prod').template;
});
afterAll(removeOutdirs);

const STAGES = ['staging', 'prod'] as const;
const resourcesOf = (template: Template, type: string) => template.findResources(type) as Resources;
const idsOf = (template: Template, type: string) => Object.keys(resourcesOf(template, type));
/** A declared function's construct id: its name, capitalized. */
const titleOf = (name: string) => name.charAt(0).toUpperCase() + name.slice(1);
/** Every declared function (functions/table.ts), by the logical id prefix of its construct. */
const FUNCTIONS = FUNCTION_NAMES.map(titleOf);
const statementsOfRole = (template: Template, rolePrefix: string): Record<string, any>[] =>
  Object.entries(resourcesOf(template, 'AWS::IAM::Policy'))
    .filter(([id]) => id.startsWith(`${rolePrefix}RoleDefaultPolicy`))
    .flatMap(([, policy]) => policy.Properties.PolicyDocument.Statement as Record<string, any>[]);

describe.each(STAGES)('the %s stack in an account it shares', (stage) => {
  const template = () => templates[stage];

  it('touches nothing account-wide: no API Gateway account setting and no role for it', () => {
    template().resourceCountIs('AWS::ApiGateway::Account', 0);
    for (const role of Object.values(resourcesOf(template(), 'AWS::IAM::Role'))) {
      expect(JSON.stringify(role.Properties.AssumeRolePolicyDocument)).not.toContain('apigateway.amazonaws.com');
    }
    // Every name that must be unique in the account and region carries the stage.
    template().hasResourceProperties('AWS::ApiGateway::RestApi', { Name: `petstore-${stage}` });
    // Except the dashboard's, which is the account's across regions: CloudFormation names it, an output says which.
    template().hasResourceProperties('AWS::CloudWatch::Dashboard', { DashboardName: Match.absent() });
    template().hasOutput('DashboardName', { Value: { Ref: Match.stringLikeRegexp('^Dashboard') } });
    for (const plan of Object.values(resourcesOf(template(), 'AWS::ApiGateway::UsagePlan')))
      expect(plan.Properties.UsagePlanName).toMatch(new RegExp(`^petstore-${stage}-`));
  });

  it('gives every log group it causes a retention, and deletes it with the stack; API Gateway makes none of its own', () => {
    const logGroups = Object.values(resourcesOf(template(), 'AWS::Logs::LogGroup'));
    // One per function and the access log.
    expect(logGroups).toHaveLength(FUNCTIONS.length + 1);
    for (const logGroup of logGroups) {
      expect(logGroup.Properties.RetentionInDays).toBe(stage === 'prod' ? 90 : 14);
      expect(logGroup.DeletionPolicy).toBe('Delete');
      expect(logGroup.UpdateReplacePolicy).toBe('Delete');
    }
    // Each function logs into its own group (Lambda would otherwise make /aws/lambda/<name>, kept forever).
    for (const id of FUNCTIONS) {
      const fn = resourcesOf(template(), 'AWS::Lambda::Function')[
        idWithPrefix(template(), 'AWS::Lambda::Function', id)
      ];
      expect(fn?.Properties.LoggingConfig.LogGroup).toEqual({
        Ref: idWithPrefix(template(), 'AWS::Logs::LogGroup', `${id}Logs`),
      });
    }
    // Execution logs off: API Gateway would write them to API-Gateway-Execution-Logs_<api>/v1, without retention, left behind.
    template().hasResourceProperties('AWS::ApiGateway::Stage', {
      MethodSettings: [Match.objectLike({ LoggingLevel: 'OFF', DataTraceEnabled: false })],
    });
  });

  it("writes an access log line that names the cause of the gateway's own answers, and never the key", () => {
    const [apiStage] = Object.values(resourcesOf(template(), 'AWS::ApiGateway::Stage'));
    const format = apiStage?.Properties.AccessLogSetting.Format as string;
    const fields = Object.keys(JSON.parse(format.replaceAll(/\$context\.[A-Za-z.]+/g, '0')) as Record<string, unknown>);
    expect(fields).toEqual([...Object.keys(ACCESS_LOG_FIELDS), 'errorMessage']);
    for (const variable of [
      '$context.error.responseType',
      '$context.error.messageString',
      '$context.authorizer.error',
      '$context.integrationErrorMessage',
      '$context.integrationStatus',
      '$context.integration.status',
    ]) {
      expect(format).toContain(variable);
    }
    expect(format).not.toMatch(/apiKey|header|\$input|\$context\.authorizer\.(?!error|integration|latency)/);
    expect(JSON.stringify(apiStage?.Properties.AccessLogSetting.DestinationArn)).toContain(
      `":log-group:",{"Ref":"${idWithPrefix(template(), 'AWS::Logs::LogGroup', 'AccessLogs')}"}`,
    );
  });

  it('lets only listPets read the cursor secret, from Secrets Manager: no function has it in its configuration', () => {
    const secret = idWithPrefix(template(), 'AWS::SecretsManager::Secret', 'CursorSecret');
    const text = JSON.stringify(template().toJSON());
    // No dynamic reference resolves the value into the template or a function.
    expect(text).not.toContain('{{resolve:secretsmanager');
    for (const id of FUNCTIONS) {
      const fn = resourcesOf(template(), 'AWS::Lambda::Function')[
        idWithPrefix(template(), 'AWS::Lambda::Function', id)
      ];
      const variables = fn?.Properties.Environment.Variables as Record<string, unknown>;
      expect([id, 'CURSOR_SECRET' in variables]).toEqual([id, false]);
      expect([id, variables.CURSOR_SECRET_ARN]).toEqual([id, id === 'ListPets' ? { Ref: secret } : undefined]);
      const onSecret = statementsOfRole(template(), id).filter(
        (statement) =>
          JSON.stringify(statement).includes(secret) || JSON.stringify(statement.Action).includes('secretsmanager'),
      );
      expect([id, onSecret]).toEqual([
        id,
        id === 'ListPets'
          ? [{ Action: 'secretsmanager:GetSecretValue', Effect: 'Allow', Resource: { Ref: secret } }]
          : [],
      ]);
    }
    // No other role of the stack (CodeDeploy's) may read it either.
    const secretReaders = Object.entries(resourcesOf(template(), 'AWS::IAM::Policy')).filter(([, policy]) =>
      JSON.stringify(policy).includes('secretsmanager'),
    );
    expect(secretReaders.map(([id]) => id.replace(/[0-9A-F]{8}$/, ''))).toEqual(['ListPetsRoleDefaultPolicy']);
  });

  it("names the web ACL's metrics after the stage", () => {
    const [acl] = Object.values(resourcesOf(template(), 'AWS::WAFv2::WebACL'));
    const names = [
      acl?.Properties.VisibilityConfig.MetricName,
      ...(acl!.Properties.Rules as { VisibilityConfig: { MetricName: string } }[]).map(
        (rule) => rule.VisibilityConfig.MetricName,
      ),
    ];
    expect(names).toEqual([
      `petstore-${stage}-web-acl`,
      `petstore-${stage}-unauthenticated-per-address`,
      `petstore-${stage}-flood-per-address`,
      `petstore-${stage}-body-too-large`,
    ]);
  });

  it('has no alarm that a new stage starts in: missing data is never a breach', () => {
    const alarms = Object.values(resourcesOf(template(), 'AWS::CloudWatch::Alarm'));
    expect(alarms.length).toBeGreaterThan(10);
    for (const alarm of alarms)
      expect([alarm.Properties.AlarmDescription.slice(0, 40), alarm.Properties.TreatMissingData]).toEqual([
        alarm.Properties.AlarmDescription.slice(0, 40),
        'notBreaching',
      ]);
    // The key mirror's: something went wrong in 5 minutes and no run succeeded; before its first run, nothing has.
    const mirror = alarms.find((alarm) => alarm.Properties.AlarmDescription.startsWith('The key mirror'))
      ?.Properties as Record<string, any>;
    expect(mirror).toMatchObject({
      Threshold: 1,
      EvaluationPeriods: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
    const metrics = mirror.Metrics as {
      Id: string;
      Expression?: string;
      MetricStat?: { Metric: { Namespace: string; MetricName: string }; Stat: string; Period: number };
    }[];
    expect(metrics.find((metric) => metric.Expression)?.Expression).toBe(
      'IF(((FILL(errors, 0) + FILL(dropped, 0) + FILL(refused, 0) + FILL(runs, 0) - FILL(succeeded, 0)) > 0) AND (FILL(succeeded, 0) == 0), 1, 0)',
    );
    expect(
      metrics
        .filter((metric) => metric.MetricStat)
        .map(({ Id, MetricStat }) => [
          Id,
          MetricStat?.Metric.Namespace,
          MetricStat?.Metric.MetricName,
          MetricStat?.Stat,
          MetricStat?.Period,
        ]),
    ).toEqual([
      ['errors', 'AWS/Lambda', 'Errors', 'Sum', 300],
      ['dropped', 'AWS/Lambda', 'AsyncEventsDropped', 'Sum', 300],
      ['refused', 'AWS/Events', 'FailedInvocations', 'Sum', 300],
      ['runs', 'PetStore', 'KeyMirrorSucceeded', 'SampleCount', 300],
      ['succeeded', 'PetStore', 'KeyMirrorSucceeded', 'Sum', 300],
    ]);
    // The same expression, evaluated as CloudWatch would over a window's values (undefined: no data point).
    const wentWrong = (values: Partial<Record<'errors' | 'dropped' | 'refused' | 'runs' | 'succeeded', number>>) => {
      const fill = (value: number | undefined) => value ?? 0;
      return fill(values.errors) +
        fill(values.dropped) +
        fill(values.refused) +
        fill(values.runs) -
        fill(values.succeeded) >
        0 && fill(values.succeeded) === 0
        ? 1
        : 0;
    };
    expect(wentWrong({})).toBe(0); // a new stage
    expect(wentWrong({ errors: 0, runs: 5, succeeded: 5 })).toBe(0);
    expect(wentWrong({ errors: 4, runs: 1, succeeded: 1 })).toBe(0); // one good run in 5 minutes is enough
    expect(wentWrong({ errors: 5 })).toBe(1);
    expect(wentWrong({ errors: 0, runs: 5, succeeded: 0 })).toBe(1); // a usage plan it cannot use
    expect(wentWrong({ dropped: 5 })).toBe(1); // throttled for lack of concurrency
    expect(wentWrong({ refused: 5 })).toBe(1);
  });

  it('lets each function write only its own log group: no managed policy, no log right on any other group', () => {
    for (const id of FUNCTIONS) {
      const roleId = idWithPrefix(template(), 'AWS::IAM::Role', `${id}Role`);
      const role = resourcesOf(template(), 'AWS::IAM::Role')[roleId];
      expect([id, role?.Properties.ManagedPolicyArns]).toEqual([id, undefined]);
      expect(role?.Properties.AssumeRolePolicyDocument.Statement).toEqual([
        { Action: 'sts:AssumeRole', Effect: 'Allow', Principal: { Service: 'lambda.amazonaws.com' } },
      ]);
      const fn = resourcesOf(template(), 'AWS::Lambda::Function')[
        idWithPrefix(template(), 'AWS::Lambda::Function', id)
      ];
      expect(fn?.Properties.Role).toEqual({ 'Fn::GetAtt': [roleId, 'Arn'] });
      const logs = statementsOfRole(template(), id).filter((statement) =>
        JSON.stringify(statement.Action).includes('logs:'),
      );
      expect([id, logs]).toEqual([
        id,
        [
          {
            Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
            Effect: 'Allow',
            Resource: { 'Fn::GetAtt': [idWithPrefix(template(), 'AWS::Logs::LogGroup', `${id}Logs`), 'Arn'] },
          },
        ],
      ]);
    }
    // No role of the stack may write logs anywhere else.
    for (const [policyId, policy] of Object.entries(resourcesOf(template(), 'AWS::IAM::Policy'))) {
      for (const statement of policy.Properties.PolicyDocument.Statement as Record<string, any>[]) {
        if (JSON.stringify(statement.Action).includes('logs:'))
          expect([policyId, statement.Resource]).toEqual([
            policyId,
            { 'Fn::GetAtt': [expect.stringMatching(/Logs[0-9A-F]{8}$/), 'Arn'] },
          ]);
      }
    }
  });

  it("lets the key mirror read the stage's usage plans and their keys, and not the region's API keys", () => {
    const gateway = statementsOfRole(template(), 'KeyMirror').filter((statement) =>
      JSON.stringify(statement.Action).includes('apigateway'),
    );
    const api = idWithPrefix(template(), 'AWS::ApiGateway::RestApi', 'Api');
    const managementApi = (path: unknown[]) => ({
      'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':apigateway:', { Ref: 'AWS::Region' }, ...path]],
    });
    const plans = idsOf(template(), 'AWS::ApiGateway::UsagePlan');
    expect(plans).toHaveLength(4);
    const sorted = (values: unknown[]) =>
      [...values].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
    expect(
      gateway.map((statement) =>
        Array.isArray(statement.Resource) ? { ...statement, Resource: sorted(statement.Resource) } : statement,
      ),
    ).toEqual([
      {
        Action: 'apigateway:GET',
        Effect: 'Allow',
        Resource: sorted([
          managementApi(['::/usageplans']),
          ...plans.map((plan) => managementApi(['::/usageplans/', { Ref: plan }, '/keys'])),
        ]),
      },
      // Any other plan (a custom Enterprise plan made in the console) only while tagged with this API's id.
      {
        Action: 'apigateway:GET',
        Effect: 'Allow',
        Resource: managementApi(['::/usageplans/*/keys']),
        Condition: { StringEquals: { 'aws:ResourceTag/petstore:api-id': { Ref: api } } },
      },
    ]);
    // The stack's own plans carry that tag too.
    for (const plan of Object.values(resourcesOf(template(), 'AWS::ApiGateway::UsagePlan')))
      expect(plan.Properties.Tags).toContainEqual({ Key: 'petstore:api-id', Value: { Ref: api } });
    // Not /apikeys (every key's value), not another API's resources.
    expect(JSON.stringify(gateway)).not.toMatch(/apikeys|restapis/);
  });

  it('publishes every function as a version behind its "live" alias, and every caller invokes the alias', () => {
    const aliases = resourcesOf(template(), 'AWS::Lambda::Alias');
    const versions = resourcesOf(template(), 'AWS::Lambda::Version');
    for (const id of FUNCTIONS) {
      const aliasId = idWithPrefix(template(), 'AWS::Lambda::Alias', `${id}Live`);
      const fnId = idWithPrefix(template(), 'AWS::Lambda::Function', id);
      const versionId = idWithPrefix(template(), 'AWS::Lambda::Version', `${id}CurrentVersion`);
      expect(versions[versionId]?.Properties.FunctionName).toEqual({ Ref: fnId });
      expect(aliases[aliasId]?.Properties).toMatchObject({
        Name: 'live',
        FunctionName: { Ref: fnId },
        FunctionVersion: { 'Fn::GetAtt': [versionId, 'Version'] },
      });
    }
    // API Gateway's integrations and the authorizer, and every invoke permission, name an alias, never a function.
    const aliasRefs = new Set(Object.keys(aliases));
    const methods = Object.values(resourcesOf(template(), 'AWS::ApiGateway::Method'));
    expect(methods).toHaveLength(OPERATION_IDS.length + Object.keys(DOCUMENTATION_ROUTES).length);
    for (const method of methods)
      expect(
        aliasRefs.has(
          JSON.stringify(method.Properties.Integration.Uri).match(/"Ref":"([A-Za-z0-9]+)"\},"\/invocations"/)?.[1] ??
            '',
        ),
      ).toBe(true);
    const [authorizer] = Object.values(resourcesOf(template(), 'AWS::ApiGateway::Authorizer'));
    expect(JSON.stringify(authorizer?.Properties.AuthorizerUri)).toContain(
      `{"Ref":"${idWithPrefix(template(), 'AWS::Lambda::Alias', 'AuthorizerLive')}"}`,
    );
    const permissions = Object.values(resourcesOf(template(), 'AWS::Lambda::Permission'));
    for (const permission of permissions) expect(aliasRefs.has(permission.Properties.FunctionName.Ref)).toBe(true);
    const [rule] = Object.values(resourcesOf(template(), 'AWS::Events::Rule'));
    expect(rule?.Properties.Targets[0].Arn).toEqual({
      Ref: idWithPrefix(template(), 'AWS::Lambda::Alias', 'KeyMirrorLive'),
    });
  });

  // The releases (CodeDeploy, the check before traffic, the gates): test/infra/releases.test.ts.

  it("has an alarm on any throttled function: every function's throttles summed, each filled with 0", () => {
    const alarms = resourcesOf(template(), 'AWS::CloudWatch::Alarm');
    const throttle = Object.values(alarms).find((alarm) =>
      alarm.Properties.AlarmDescription.startsWith('Lambda refused'),
    )?.Properties as Record<string, any>;
    const terms = (
      throttle.Metrics as {
        Id: string;
        Expression?: string;
        MetricStat?: { Metric: { MetricName: string; Dimensions: { Value: unknown }[] } };
      }[]
    ).filter((metric) => metric.MetricStat);
    expect(terms.map((metric) => [metric.MetricStat?.Metric.MetricName, metric.MetricStat?.Metric.Dimensions])).toEqual(
      FUNCTIONS.map((id) => [
        'Throttles',
        [{ Name: 'FunctionName', Value: { Ref: idWithPrefix(template(), 'AWS::Lambda::Function', id) } }],
      ]),
    );
    expect(throttle.Metrics.find((metric: { Expression?: string }) => metric.Expression).Expression).toBe(
      terms.map((metric) => `FILL(${metric.Id}, 0)`).join(' + '),
    );
    // The latency alarm can fire within a canary: three slow minutes of five one-minute periods.
    template().hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmDescription: Match.stringLikeRegexp('p99 latency'),
      EvaluationPeriods: 5,
      DatapointsToAlarm: 3,
    });
  });

  it("tells the person deploying to check the account's Lambda concurrency quota", () => {
    Annotations.fromStack(synth(stage).app.node.findChild(`PetStore-${stage}`) as never).hasInfo(
      `/PetStore-${stage}`,
      Match.stringLikeRegexp('concurrency quota.*aws lambda get-account-settings.*docs/first-deploy.md'),
    );
  });
});

describe('the account setup stack (cdk deploy -c setup=account)', () => {
  it("sets API Gateway's logging role once per account and region, and keeps both when deleted", () => {
    const { app, template } = synthAccountSetup();
    expect(() => app.synth()).not.toThrow(); // cdk-nag clean
    expect(Object.keys(template.toJSON().Resources as object)).toHaveLength(2);
    const roleId = idWithPrefix(template, 'AWS::IAM::Role', 'ApiGatewayLogsRole');
    template.hasResource('AWS::ApiGateway::Account', {
      Properties: { CloudWatchRoleArn: { 'Fn::GetAtt': [roleId, 'Arn'] } },
      DeletionPolicy: 'Retain',
    });
    template.hasResource('AWS::IAM::Role', {
      Properties: {
        AssumeRolePolicyDocument: {
          Statement: [
            { Action: 'sts:AssumeRole', Effect: 'Allow', Principal: { Service: 'apigateway.amazonaws.com' } },
          ],
        },
        ManagedPolicyArns: [
          {
            'Fn::Join': [
              '',
              ['arn:', { Ref: 'AWS::Partition' }, ':iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs'],
            ],
          },
        ],
      },
      DeletionPolicy: 'Retain',
    });
    expect(
      app.node
        .findAll()
        .some(
          (construct) =>
            construct.node.id.startsWith('PetStore-staging') || construct.node.id.startsWith('PetStore-prod'),
        ),
    ).toBe(false);
  });
});
