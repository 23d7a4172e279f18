import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { App, Stack, Validations } from 'aws-cdk-lib';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { P99_LATENCY_ALARM_MINUTES, P99_LATENCY_ALARM_MS } from '../../infra/alarms';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { AwsSolutionsChecks } from 'cdk-nag';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GATEWAY_RESPONSES } from '../../shared/http/gateway-responses';
import { listPetsEvent } from '../support/api';
import committedDocument from '../../openapi/openapi.json' with { type: 'json' };
import { usagePlanNumbers, limitsOf } from '../../infra/usage-plans';
import { WAF_RULES } from '../../infra/waf';
import { lambdaContext } from '../../local/api-gateway-event';
import { PLAN_NAMES } from '../../shared/limits/plans';
import { ITEM_PARTITIONS } from '../../shared/dynamodb/table-definition';
import {
  FUNCTION_NAMES,
  FUNCTIONS,
  OPERATION_IDS,
  OPERATIONS,
  RELEASED_FUNCTIONS,
  type DataAccess,
  type FunctionName,
} from '../../functions/table';
import { CursorCodec } from '../../shared/pets/cursor';
import { DynamoDbPetRepository } from '../../shared/pets/repository';
import { testDatabase } from '../support/database';
import { startFakeSecretsManager } from '../support/fake-secrets-manager';
import { newOutdir, RELEASE_GATE_ID, removeOutdirs, synth } from '../support/synth';
import { functionRoles, rolesAllowing, type DynamoDbRequest } from '../support/template-rights';

let prod: Template;
let staging: Template;

beforeAll(() => {
  prod = synth('prod').template;
  staging = synth('staging').template;
});
afterAll(removeOutdirs);

function functionLogicalId(template: Template, idPrefix: string): string {
  const [id] = Object.keys(template.findResources('AWS::Lambda::Function')).filter((logicalId) =>
    logicalId.startsWith(idPrefix),
  );
  if (id === undefined) throw new Error(`no function ${idPrefix}`);
  return id;
}

/** The function's rights, but its X-Ray and log statements (alike for every function: asserted on their own). */
function policyStatementsOf(template: Template, functionPrefix: string): Record<string, unknown>[] {
  return allPolicyStatementsOf(template, functionPrefix).filter(
    (statement) =>
      JSON.stringify(statement) !== JSON.stringify(XRAY_STATEMENT) &&
      JSON.stringify(statement) !== JSON.stringify(logStatementOf(template, functionPrefix)),
  );
}

/** What each function may do with logs: write its own log group's streams, nothing else. */
function logStatementOf(template: Template, functionPrefix: string): Record<string, unknown> {
  const [logGroup] = Object.keys(template.findResources('AWS::Logs::LogGroup')).filter((id) =>
    id.startsWith(`${functionPrefix}Logs`),
  );
  return {
    Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
    Effect: 'Allow',
    Resource: { 'Fn::GetAtt': [logGroup, 'Arn'] },
  };
}

/** What active tracing grants each function: writing its trace segments, on no narrower resource than X-Ray allows. */
const XRAY_STATEMENT = {
  Action: ['xray:PutTelemetryRecords', 'xray:PutTraceSegments'],
  Effect: 'Allow',
  Resource: '*',
};

function allPolicyStatementsOf(template: Template, functionPrefix: string): Record<string, unknown>[] {
  const policies = template.findResources('AWS::IAM::Policy');
  const statements: Record<string, unknown>[] = [];
  for (const [logicalId, policy] of Object.entries(policies)) {
    if (!logicalId.startsWith(`${functionPrefix}RoleDefaultPolicy`)) continue;
    statements.push(
      ...(policy as { Properties: { PolicyDocument: { Statement: Record<string, unknown>[] } } }).Properties
        .PolicyDocument.Statement,
    );
  }
  return statements;
}

/** A function's construct id: its declared name, capitalized. */
const titleOf = (name: FunctionName) => name.charAt(0).toUpperCase() + name.slice(1);
const OPERATION_TITLES = OPERATION_IDS.map(titleOf);

/** A DynamoDB right, as comparable text: its actions, the table or the index, and the partition keys it is limited to. */
const rightText = (actions: string[], on: string, leadingKeys: string[] | undefined) =>
  `${[...actions].sort().join(',')} on ${on}${leadingKeys ? ` for ${[...leadingKeys].sort().join(',')}` : ''}`;

/** The function's DynamoDB rights in the template, as text. */
function templateDynamoDbRights(template: Template, name: FunctionName): string[] {
  return policyStatementsOf(template, titleOf(name))
    .filter((statement) => [statement.Action].flat().some((action) => String(action).startsWith('dynamodb:')))
    .flatMap((statement) => {
      const resource = JSON.stringify(statement.Resource);
      // CDK merges the statements of two indexes with the same actions into one of two resources.
      const indexes = [...resource.matchAll(/\/index\/([\w-]+)/g)].map((match) => match[1] as string);
      const leadingKeys = (statement.Condition as any)?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'];
      expect(Object.keys((statement.Condition as object) ?? {})).toEqual(
        leadingKeys === undefined ? [] : ['ForAllValues:StringLike'],
      );
      const actions = [statement.Action].flat() as string[];
      if (indexes.length > 0) return indexes.map((index) => rightText(actions, `index ${index}`, undefined));
      return [rightText(actions, 'table', leadingKeys === undefined ? undefined : [leadingKeys].flat())];
    })
    .sort();
}

/** The same, from a declaration: what the stack must grant, no more. */
const declaredDynamoDbRights = (rights: readonly DataAccess[]) =>
  rights
    .map((right) =>
      'index' in right
        ? rightText(
            right.actions.map((action) => `dynamodb:${action}`),
            `index ${right.index}`,
            undefined,
          )
        : rightText(
            right.actions.map((action) => `dynamodb:${action}`),
            'table',
            right.items.map((kind) => ITEM_PARTITIONS[kind]),
          ),
    )
    .sort();

const actionsOf = (statements: Record<string, unknown>[]) =>
  statements.flatMap((s) => [s.Action].flat() as string[]).sort();

describe('the stack, per stage', () => {
  it("runs cdk-nag's AWS Solutions checks on synth, and every finding is acknowledged with a reason", () => {
    const { app } = synth('prod');
    expect(() => app.synth()).not.toThrow();
  });

  it('fails synth on an unacknowledged cdk-nag finding (the check is live)', () => {
    const app = new App({ outdir: newOutdir() });
    const stack = new Stack(app, 'Bad');
    new Role(stack, 'Wild', { assumedBy: new ServicePrincipal('lambda.amazonaws.com') }).addToPolicy(
      new PolicyStatement({ actions: ['s3:*'], resources: ['*'] }),
    );
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    expect(() => app.synth()).toThrow();
  });

  it('has its declared functions (the operations, the authorizer, the docs, the key mirror, the check before traffic, the release prober) on Node.js 22, arm64, with bounded memory, timeout and log retention', () => {
    prod.resourceCountIs('AWS::Lambda::Function', FUNCTION_NAMES.length);
    for (const name of FUNCTION_NAMES) {
      expect(
        prod.findResources('AWS::Lambda::Function')[functionLogicalId(prod, titleOf(name))]?.Properties.Handler,
      ).toBe('index.handler');
    }
    prod.allResourcesProperties('AWS::Lambda::Function', {
      Runtime: 'nodejs22.x',
      Architectures: ['arm64'],
      MemorySize: 512,
      LoggingConfig: Match.objectLike({ LogFormat: 'JSON' }),
    });
    // Every function traced, the check before traffic too (issue 51: its probes' invocations join its trace).
    for (const id of FUNCTION_NAMES.map(titleOf)) {
      expect([
        id,
        prod.findResources('AWS::Lambda::Function')[functionLogicalId(prod, id)]?.Properties.TracingConfig,
      ]).toEqual([id, { Mode: 'Active' }]);
      const xray = allPolicyStatementsOf(prod, id).filter((statement) => JSON.stringify(statement).includes('xray:'));
      expect([id, xray]).toEqual([id, [XRAY_STATEMENT]]);
    }
    // cdk-nag's acknowledgement of Resource::* is role-wide: in every function's role, only X-Ray's
    // actions (which name no resource) may have it.
    for (const template of [prod, staging]) {
      for (const id of FUNCTION_NAMES.map(titleOf)) {
        const everywhere = allPolicyStatementsOf(template, id).filter((statement) =>
          [statement.Resource].flat().some((resource) => resource === '*'),
        );
        expect([id, everywhere]).toEqual([id, [XRAY_STATEMENT]]);
      }
    }
    // The request path's functions (those released behind the check) 10 s.
    for (const id of RELEASED_FUNCTIONS.map(titleOf)) {
      expect(prod.findResources('AWS::Lambda::Function')[functionLogicalId(prod, id)]?.Properties.Timeout).toBe(10);
    }
    expect(prod.findResources('AWS::Lambda::Function')[functionLogicalId(prod, 'KeyMirror')]?.Properties.Timeout).toBe(
      50,
    );
    // The prober's rounds end by 40 s, and its last invocation may take its deadline, 12 s (shared/release-check/canary-probes.ts).
    expect(
      prod.findResources('AWS::Lambda::Function')[functionLogicalId(prod, 'ReleaseProber')]?.Properties.Timeout,
    ).toBe(55);
    prod.allResourcesProperties('AWS::Logs::LogGroup', { RetentionInDays: 90 });
    staging.allResourcesProperties('AWS::Logs::LogGroup', { RetentionInDays: 14 });
    prod.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ TABLE_NAME: Match.anyValue() }) },
    });
    // Each released function (the operations, the docs, the authorizer: the table's): a runaway, an
    // error and two release gates (failures and latency); the authorizer (whose "Unauthorized" is a
    // failed invocation by design) the runaway one and its gates of latency, refusals and the
    // release prober's requests (releases.test.ts); the key mirror its own (first-deploy.test.ts);
    // the release prober an error alarm (a run that cannot read an alias or the release key throws).
    const alarms = Object.values(prod.findResources('AWS::CloudWatch::Alarm')) as {
      Properties: { AlarmDescription: string };
    }[];
    const described = (prefix: string) =>
      alarms.filter((alarm) => alarm.Properties.AlarmDescription.startsWith(prefix)).length;
    for (const name of RELEASED_FUNCTIONS) expect([name, described(`${titleOf(name)}:`)]).toEqual([name, 4]);
    expect(described('The key mirror')).toBe(1);
    expect(described('ReleaseProber: invocations failing')).toBe(1);
    expect(described("Over 1 % of the API's answers were 5XX")).toBe(1);
    expect(described("The API's p99 latency")).toBe(1);
    expect(described('DynamoDB throttled')).toBe(1);
    expect(described('Lambda refused to run a function')).toBe(1);
    expect(described('The authorizer refused over 90 %')).toBe(1);
    expect(described('EventBridge could not deliver the notice')).toBe(1);
    // Each operation's error alarm also counts the 5XX answers it gives itself (a successful invocation), of any version.
    for (const id of OPERATION_TITLES) {
      const errorAlarm = Object.entries(prod.findResources('AWS::CloudWatch::Alarm')).find(([alarmId]) =>
        alarmId.startsWith(`${id}ErrorAlarm`),
      )?.[1] as { Properties: Record<string, any> };
      expect(errorAlarm.Properties).toMatchObject({
        Threshold: 5,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        EvaluationPeriods: 1,
        TreatMissingData: 'notBreaching',
      });
      const queries = errorAlarm.Properties.Metrics as {
        Id: string;
        Expression?: string;
        MetricStat?: { Metric: { Namespace: string; MetricName: string; Dimensions: unknown[] } };
      }[];
      expect(queries.find((query) => query.Expression)?.Expression).toBe('FILL(errors, 0) + FILL(answers5xx, 0)');
      const operation = id.charAt(0).toLowerCase() + id.slice(1);
      expect(queries.find((query) => query.Id === 'answers5xx')?.MetricStat?.Metric).toEqual({
        Namespace: 'PetStore/prod',
        MetricName: 'Status5xx',
        Dimensions: [{ Name: 'operation', Value: operation }],
      });
      expect(queries.find((query) => query.Id === 'errors')?.MetricStat?.Metric.MetricName).toBe('Errors');
    }
    // No other alarm: the released functions' own, 1 for the mirror, 2 for the prober (its errors, and its release gate), and the stage's 6 above.
    expect(alarms).toHaveLength(4 * RELEASED_FUNCTIONS.length + 1 + 2 + 6);
    // CloudWatch allows at most 10 metrics in an alarm's metric math (its hard limit): a deploy fails beyond.
    for (const template of [prod, staging]) {
      for (const [id, alarm] of Object.entries(
        template.findResources('AWS::CloudWatch::Alarm') as Record<
          string,
          { Properties: { Metrics?: { MetricStat?: unknown }[] } }
        >,
      )) {
        expect([id, (alarm.Properties.Metrics ?? []).filter((query) => query.MetricStat).length <= 10]).toEqual([
          id,
          true,
        ]);
      }
    }
  });

  it('gives each function only the rights it needs: no API Gateway rights on the request path, reads scoped to the items each needs', () => {
    const list = policyStatementsOf(prod, 'ListPets');
    const get = policyStatementsOf(prod, 'GetPet');
    const create = policyStatementsOf(prod, 'CreatePet');
    const authorizer = policyStatementsOf(prod, 'Authorizer');
    const mirror = policyStatementsOf(prod, 'KeyMirror');
    const leadingKeys = (statements: Record<string, unknown>[], action: string) =>
      statements
        .filter((s) => [s.Action].flat().includes(action))
        .map((s) => (s.Condition as any)?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'] ?? 'any item');

    expect(actionsOf(list)).toEqual([
      'dynamodb:Query',
      'dynamodb:Query',
      'dynamodb:UpdateItem',
      'secretsmanager:GetSecretValue',
    ]);
    expect(actionsOf(get)).toEqual(['dynamodb:GetItem', 'dynamodb:UpdateItem']);
    // No counter: the id is drawn by the function (shared/pets/pet-ids.ts).
    expect(actionsOf(create)).toEqual(['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem']);
    for (const statements of [list, get, create, authorizer])
      expect(actionsOf(statements).some((action) => action.startsWith('apigateway:'))).toBe(false);

    // Pets (their shards, the customers' and the release check's apart), not counters or keys; the indexes hold only pets (no right of the former layouts: below).
    expect(leadingKeys(list, 'dynamodb:Query')).toEqual([['PET#*', 'RELEASES#PET#*'], 'any item']);
    expect(leadingKeys(get, 'dynamodb:GetItem')).toEqual([['PET#*', 'RELEASES#PET#*']]);
    const indexRead = list.find((s) => s.Action === 'dynamodb:Query' && s.Condition === undefined);
    expect(JSON.stringify(indexRead?.Resource)).toContain('/index/petsByStatus');
    expect(JSON.stringify(indexRead?.Resource)).toContain('/index/petsById');
    expect(JSON.stringify(indexRead?.Resource)).not.toContain('/index/registeredKeys');
    // Counting: the operations their key's counters; the authorizer the addresses'.
    expect(leadingKeys(list, 'dynamodb:UpdateItem')).toEqual([['RATE#key#*']]);
    expect(leadingKeys(get, 'dynamodb:UpdateItem')).toEqual([['RATE#key#*']]);
    expect(leadingKeys(create, 'dynamodb:UpdateItem')).toEqual([['RATE#key#*']]);
    // Pets and idempotency records (written together in one transaction); the records are the only items createPet reads.
    expect(leadingKeys(create, 'dynamodb:PutItem')).toEqual([['PET#*', 'RELEASES#PET#*', 'IDEMPOTENCY#*']]);
    // Records, and a pet read back when its write's outcome is unknown.
    expect(leadingKeys(create, 'dynamodb:GetItem')).toEqual([['IDEMPOTENCY#*', 'PET#*', 'RELEASES#PET#*']]);
    expect(actionsOf(authorizer)).toEqual(['dynamodb:GetItem', 'dynamodb:UpdateItem']);
    // Every key in a partition of its own (APIKEY#<hash>); not the former shared one (`APIKEY`, retired with the former pets layout).
    expect(leadingKeys(authorizer, 'dynamodb:GetItem')).toEqual([['APIKEY#*']]);
    expect(leadingKeys(policyStatementsOf(staging, 'Authorizer'), 'dynamodb:GetItem')).toEqual([['APIKEY#*']]);
    expect(leadingKeys(authorizer, 'dynamodb:UpdateItem')).toEqual([['RATE#ip#*']]);

    // The key mirror: read-only on API Gateway's keys and usage plans (which ones: first-deploy.test.ts), and only the key registry's items.
    // It lists the registry through the key index (which holds only keys), never by reading the table.
    expect(actionsOf(mirror)).toEqual([
      'apigateway:GET',
      'apigateway:GET',
      'dynamodb:DeleteItem',
      'dynamodb:PutItem',
      'dynamodb:Query',
    ]);
    expect(leadingKeys(mirror, 'dynamodb:PutItem')).toEqual([['APIKEY#*']]);
    expect(leadingKeys(mirror, 'dynamodb:DeleteItem')).toEqual([['APIKEY#*']]);
    expect(leadingKeys(mirror, 'dynamodb:Query')).toEqual(['any item']);
    expect(JSON.stringify(mirror.find((s) => s.Action === 'dynamodb:Query')?.Resource)).toContain(
      '/index/registeredKeys',
    );

    expect(policyStatementsOf(prod, 'ApiDocs')).toEqual([]);
  });

  it('grants every function exactly the DynamoDB rights it declares (functions/table.ts), which the local server enforces', () => {
    for (const [stage, template] of [
      ['prod', prod],
      ['staging', staging],
    ] as const) {
      for (const name of FUNCTION_NAMES)
        expect([stage, name, templateDynamoDbRights(template, name)]).toEqual([
          stage,
          name,
          declaredDynamoDbRights(FUNCTIONS[name].dynamodb),
        ]);
    }
    // The comparison sees a right the template lacks, or one it has besides (a planted difference).
    const createPet = FUNCTIONS.createPet.dynamodb;
    expect(templateDynamoDbRights(prod, 'createPet')).not.toEqual(declaredDynamoDbRights(createPet.slice(1)));
    expect(templateDynamoDbRights(prod, 'createPet')).not.toEqual(
      declaredDynamoDbRights([...createPet, { actions: ['DeleteItem'], items: ['pets'] }]),
    );
    // Secrets: exactly the declared ones, GetSecretValue only, their ARNs in the environment.
    for (const name of FUNCTION_NAMES) {
      const secretActions = actionsOf(policyStatementsOf(prod, titleOf(name))).filter((action) =>
        action.startsWith('secretsmanager:'),
      );
      const declared: readonly string[] =
        'secrets' in FUNCTIONS[name] ? (FUNCTIONS[name] as { secrets: readonly string[] }).secrets : [];
      expect([name, secretActions]).toEqual([name, declared.map(() => 'secretsmanager:GetSecretValue')]);
      const variables =
        prod.findResources('AWS::Lambda::Function')[functionLogicalId(prod, titleOf(name))]?.Properties.Environment
          .Variables;
      expect([name, 'CURSOR_SECRET_ARN' in variables]).toEqual([name, declared.includes('cursor')]);
      expect([name, 'TABLE_NAME' in variables]).toEqual([name, FUNCTIONS[name].dynamodb.length > 0]);
    }
  });

  it("alarms on the API's 5XX rate over 1 % for 5 minutes (a failing authorizer among its causes), its p99 latency, and any DynamoDB throttling", () => {
    const alarm = (prefix: string) =>
      (Object.values(prod.findResources('AWS::CloudWatch::Alarm')) as { Properties: Record<string, any> }[]).find(
        (candidate) => candidate.Properties.AlarmDescription.startsWith(prefix),
      )?.Properties;
    const rate = alarm('Over 1 %');
    expect(rate).toMatchObject({
      Threshold: 1,
      EvaluationPeriods: 1,
      ComparisonOperator: 'GreaterThanThreshold',
      TreatMissingData: 'notBreaching',
    });
    const rateMetrics = rate?.Metrics as {
      Id: string;
      Expression?: string;
      MetricStat?: { Metric: { Namespace: string; MetricName: string }; Period: number; Stat: string };
    }[];
    // Not before 100 answers and 5 of them 5XX in the 5 minutes: one stray 5XX of a quiet hour fires nothing (and rolls no release back).
    expect(rateMetrics.find((metric) => metric.Expression !== undefined)?.Expression).toBe(
      'IF((requests >= 100) AND (errors >= 5), 100 * errors / requests, 0)',
    );
    expect(
      rateMetrics
        .filter((metric) => metric.MetricStat)
        .map((metric) => [
          metric.Id,
          metric.MetricStat?.Metric.Namespace,
          metric.MetricStat?.Metric.MetricName,
          metric.MetricStat?.Period,
          metric.MetricStat?.Stat,
        ]),
    ).toEqual([
      ['errors', 'AWS/ApiGateway', '5XXError', 300, 'Sum'],
      ['requests', 'AWS/ApiGateway', 'Count', 300, 'Sum'],
    ]);
    // 3 slow minutes of 5, each of at least 20 answers: a quiet minute counts as fast, so it cannot fire the alarm, and two cannot hide three slow ones.
    const latency = alarm("The API's p99 latency");
    expect(latency).toMatchObject({
      Threshold: 1500,
      EvaluationPeriods: 5,
      DatapointsToAlarm: 3,
      ComparisonOperator: 'GreaterThanThreshold',
      TreatMissingData: 'notBreaching',
    });
    const latencyMetrics = latency?.Metrics as {
      Id: string;
      Expression?: string;
      MetricStat?: { Metric: { Namespace: string; MetricName: string }; Period: number; Stat: string };
    }[];
    expect(latencyMetrics.find((metric) => metric.Expression !== undefined)?.Expression).toBe(
      'IF(requests >= 20, p99, 0)',
    );
    expect(
      latencyMetrics
        .filter((metric) => metric.MetricStat)
        .map((metric) => [
          metric.Id,
          metric.MetricStat?.Metric.Namespace,
          metric.MetricStat?.Metric.MetricName,
          metric.MetricStat?.Period,
          metric.MetricStat?.Stat,
        ]),
    ).toEqual([
      ['p99', 'AWS/ApiGateway', 'Latency', 60, 'p99'],
      ['requests', 'AWS/ApiGateway', 'Count', 60, 'Sum'],
    ]);
    const throttling = alarm('DynamoDB throttled');
    expect(throttling).toMatchObject({ Threshold: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold' });
    const throttleMetrics = throttling?.Metrics as {
      Id: string;
      Expression?: string;
      MetricStat?: { Metric: { MetricName: string; Dimensions: { Name: string }[] } };
    }[];
    expect(
      throttleMetrics
        .filter((metric) => metric.MetricStat)
        .map((metric) => [
          metric.Id,
          metric.MetricStat?.Metric.MetricName,
          metric.MetricStat?.Metric.Dimensions.map((dimension) => dimension.Name),
        ]),
    ).toEqual([
      ['tableReads', 'ReadThrottleEvents', ['TableName']],
      ['tableWrites', 'WriteThrottleEvents', ['TableName']],
      ['petsByStatusReads', 'ReadThrottleEvents', ['GlobalSecondaryIndexName', 'TableName']],
      ['petsByStatusWrites', 'WriteThrottleEvents', ['GlobalSecondaryIndexName', 'TableName']],
      ['registeredKeysReads', 'ReadThrottleEvents', ['GlobalSecondaryIndexName', 'TableName']],
      ['registeredKeysWrites', 'WriteThrottleEvents', ['GlobalSecondaryIndexName', 'TableName']],
      ['petsByIdReads', 'ReadThrottleEvents', ['GlobalSecondaryIndexName', 'TableName']],
      ['petsByIdWrites', 'WriteThrottleEvents', ['GlobalSecondaryIndexName', 'TableName']],
      ['petsByStatusAgainReads', 'ReadThrottleEvents', ['GlobalSecondaryIndexName', 'TableName']],
      ['petsByStatusAgainWrites', 'WriteThrottleEvents', ['GlobalSecondaryIndexName', 'TableName']],
    ]);
    // CloudWatch's hard limit: an alarm on a metric math expression reads 10 metrics at most. A fifth index needs a second alarm.
    expect(throttleMetrics.filter((metric) => metric.MetricStat)).toHaveLength(10);
    // Every index of the table, each by its name.
    const indexOf = (id: string) =>
      (
        throttleMetrics.find((metric) => metric.Id === id)!.MetricStat!.Metric.Dimensions as {
          Name: string;
          Value: unknown;
        }[]
      ).find((dimension) => dimension.Name === 'GlobalSecondaryIndexName')?.Value;
    expect(
      [
        'petsByStatusReads',
        'petsByStatusWrites',
        'registeredKeysReads',
        'registeredKeysWrites',
        'petsByIdReads',
        'petsByIdWrites',
        'petsByStatusAgainReads',
        'petsByStatusAgainWrites',
      ].map(indexOf),
    ).toEqual([
      'petsByStatus',
      'petsByStatus',
      'registeredKeys',
      'registeredKeys',
      'petsById',
      'petsById',
      'petsByStatusAgain',
      'petsByStatusAgain',
    ]);
    // A throttle metric exists only while throttled: every term is filled, or the sum has no value.
    expect(throttleMetrics.find((metric) => metric.Expression !== undefined)?.Expression).toBe(
      'FILL(tableReads, 0) + FILL(tableWrites, 0) + FILL(petsByStatusReads, 0) + FILL(petsByStatusWrites, 0) + FILL(registeredKeysReads, 0) + FILL(registeredKeysWrites, 0) + FILL(petsByIdReads, 0) + FILL(petsByIdWrites, 0) + FILL(petsByStatusAgainReads, 0) + FILL(petsByStatusAgainWrites, 0)',
    );
  });

  it('sends every alarm of the stage to one encrypted SNS topic, exported so that an operator subscribes once', () => {
    for (const template of [prod, staging]) {
      template.resourceCountIs('AWS::SNS::Topic', 1);
      const [topicId] = Object.keys(template.findResources('AWS::SNS::Topic'));
      template.hasResourceProperties('AWS::SNS::Topic', {
        KmsMasterKeyId: { 'Fn::GetAtt': [Match.stringLikeRegexp('^AlarmTopicKey'), 'Arn'] },
      });
      template.hasResourceProperties('AWS::KMS::Key', { EnableKeyRotation: true });
      // Every alarm but the release gates, which judge a release (CodeDeploy rolls it back) and notify no one (test/infra/releases.test.ts).
      const alarms = Object.entries(
        template.findResources('AWS::CloudWatch::Alarm') as Record<
          string,
          { Properties: { AlarmActions?: unknown[] } }
        >,
      );
      const gates = alarms.filter(([id]) => RELEASE_GATE_ID.test(id));
      // In prod two per released function (its latency, and its failures or the authorizer's refusals), the authorizer's third (the prober's
      // requests it refused) and the prober's own; staging releases all at once, and has none.
      expect(gates).toHaveLength(template === prod ? 2 * RELEASED_FUNCTIONS.length + 2 : 0);
      expect(alarms.length - gates.length).toBeGreaterThan(10);
      for (const [id, alarm] of alarms)
        expect([id, alarm.Properties.AlarmActions]).toEqual([
          id,
          gates.some(([gate]) => gate === id) ? undefined : [{ Ref: topicId }],
        ]);
      template.hasOutput('AlarmTopicArn', { Value: { Ref: topicId } });
    }
    // CloudWatch may use the key to publish; the topic refuses anything but TLS.
    // CloudWatch may use the key, for this account's alarms only (aws:SourceAccount: no confused deputy).
    for (const template of [prod, staging]) {
      const [key] = Object.values(template.findResources('AWS::KMS::Key')) as {
        Properties: { KeyPolicy: { Statement: Record<string, unknown>[] } };
      }[];
      const cloudWatch = key?.Properties.KeyPolicy.Statement.filter((statement) =>
        JSON.stringify(statement.Principal).includes('cloudwatch.amazonaws.com'),
      );
      expect(cloudWatch).toEqual([
        {
          Action: ['kms:Decrypt', 'kms:GenerateDataKey*'],
          Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } },
          Effect: 'Allow',
          Principal: { Service: 'cloudwatch.amazonaws.com' },
          Resource: '*',
        },
      ]);
    }
    prod.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
    // That policy replaces SNS's default: CloudWatch is allowed to publish, for this account's alarms only.
    prod.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Allow',
            Action: 'sns:Publish',
            Principal: { Service: 'cloudwatch.amazonaws.com' },
            Condition: {
              ArnLike: { 'aws:SourceArn': Match.anyValue() },
              StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
            },
          }),
        ]),
      },
    });
  });

  it('has one dashboard per stage: requests and errors by operation, 429s by code and plan, latency, DynamoDB, the authorizer and the key mirror', () => {
    for (const [stage, template] of [
      ['prod', prod],
      ['staging', staging],
    ] as const) {
      template.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
      template.hasResourceProperties('AWS::CloudWatch::Dashboard', { DashboardName: Match.absent() });
      const body = JSON.stringify(Object.values(template.findResources('AWS::CloudWatch::Dashboard'))[0]);
      for (const text of [
        `PetStore/${stage}`,
        'Requests by operation',
        '5XX by operation',
        `SEARCH('{PetStore/${stage},operation,plan} MetricName=`, // every plan, found by its dimensions
        'RateLimited',
        'KeySuspended',
        'p99',
        // The widget names the alarm's own period.
        `(alarm: p99 > ${P99_LATENCY_ALARM_MS} ms in 3 of ${P99_LATENCY_ALARM_MINUTES} min)`,
        'ConsumedReadCapacityUnits',
        'WriteThrottleEvents',
        'KeyMirrorSucceeded',
        'AWS/Lambda', // the authorizer's errors and invocations
      ])
        expect([stage, text, body.includes(text)]).toEqual([stage, text, true]);
      // A line per index of the table, by its name.
      for (const index of ['"GlobalSecondaryIndexName","petsByStatus"', '"GlobalSecondaryIndexName","registeredKeys"'])
        expect([stage, index, body.includes(index.replaceAll('"', '\\"'))]).toEqual([stage, index, true]);
      // A graph line per operation, by its declared id.
      for (const operationId of OPERATION_IDS)
        expect([stage, operationId, body.includes(operationId)]).toEqual([stage, operationId, true]);
    }
    // The functions write their metrics into their stage's namespace.
    prod.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ METRICS_NAMESPACE: 'PetStore/prod' }) },
    });
    staging.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ METRICS_NAMESPACE: 'PetStore/staging' }) },
    });
  });

  it('traces each request across API Gateway, the authorizer and the function (X-Ray, active)', () => {
    prod.hasResourceProperties('AWS::ApiGateway::Stage', { TracingEnabled: true });
  });

  it("runs the key mirror's alias every minute, retried neither by EventBridge nor by Lambda, and dropped when Lambda cannot start it within a minute", () => {
    // On the alias the schedule invokes: Lambda's defaults (2 retries, 6 hours) would hold for it otherwise.
    const [mirrorAlias] = Object.keys(prod.findResources('AWS::Lambda::Alias')).filter((id) =>
      id.startsWith('KeyMirrorLive'),
    );
    // The key mirror's and the release prober's (infra/release-prober.ts), each a schedule's.
    prod.resourceCountIs('AWS::Lambda::EventInvokeConfig', 2);
    prod.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: functionLogicalId(prod, 'KeyMirror') },
      // The alias's name, taken from its ARN (…:function:<name>:live).
      Qualifier: { 'Fn::Select': [7, { 'Fn::Split': [':', { Ref: mirrorAlias }] }] },
      MaximumRetryAttempts: 0,
      MaximumEventAgeInSeconds: 60,
    });
    prod.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(1 minute)',
      State: 'ENABLED',
      Targets: [
        Match.objectLike({
          Arn: { Ref: mirrorAlias },
          RetryPolicy: { MaximumRetryAttempts: 0, MaximumEventAgeInSeconds: 60 },
        }),
      ],
    });
    prod.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: Match.objectLike({
          REST_API_ID: Match.anyValue(),
          API_STAGE: Match.anyValue(),
          TABLE_NAME: Match.anyValue(),
        }),
      },
    });
  });

  it('serves the REST API on stage v1 with the bearer token as the usage-plan key on every operation', () => {
    prod.hasResourceProperties('AWS::ApiGateway::RestApi', { ApiKeySourceType: 'AUTHORIZER' });
    prod.hasResourceProperties('AWS::ApiGateway::Stage', {
      StageName: 'v1',
      AccessLogSetting: Match.objectLike({
        DestinationArn: Match.anyValue(),
        Format: Match.stringLikeRegexp('"status"'),
      }),
      MethodSettings: [Match.objectLike({ LoggingLevel: 'OFF', MetricsEnabled: true })],
    });
    prod.hasResourceProperties('AWS::ApiGateway::Authorizer', {
      Type: 'REQUEST',
      IdentitySource: 'method.request.header.Authorization,context.identity.sourceIp',
    });
    // Every cache in front of the key registry holds at most 60 s.
    const [authorizer] = Object.values(prod.findResources('AWS::ApiGateway::Authorizer')) as {
      Properties: { AuthorizerResultTtlInSeconds: number };
    }[];
    expect(authorizer?.Properties.AuthorizerResultTtlInSeconds).toBeGreaterThan(0);
    expect(authorizer?.Properties.AuthorizerResultTtlInSeconds).toBeLessThanOrEqual(60);
    const methods = Object.values(prod.findResources('AWS::ApiGateway::Method')) as {
      Properties: Record<string, any>;
    }[];
    const operations = methods.filter((m) => m.Properties.AuthorizationType !== 'NONE');
    expect(operations.map((m) => m.Properties.OperationName).sort()).toEqual([...OPERATION_IDS].sort());
    for (const operationId of OPERATION_IDS) {
      const method = operations.find((m) => m.Properties.OperationName === operationId);
      expect([operationId, method?.Properties.HttpMethod]).toEqual([operationId, OPERATIONS[operationId].route.method]);
      expect(JSON.stringify(method?.Properties.Integration.Uri)).toContain(
        `{"Ref":"${Object.keys(prod.findResources('AWS::Lambda::Alias')).find((id) => id.startsWith(`${titleOf(operationId)}Live`))}"}`,
      );
    }
    for (const method of operations) {
      expect(method.Properties).toMatchObject({
        AuthorizationType: 'CUSTOM',
        AuthorizerId: expect.anything(),
        ApiKeyRequired: true,
        Integration: { Type: 'AWS_PROXY' },
      });
    }
    prod.hasResourceProperties('AWS::ApiGateway::Resource', { PathPart: 'pets' });
    prod.hasResourceProperties('AWS::ApiGateway::Resource', { PathPart: '{petId}' });
  });

  it('serves the interface description and its reference page without a key', () => {
    const methods = Object.values(prod.findResources('AWS::ApiGateway::Method')) as {
      Properties: Record<string, any>;
    }[];
    const open = methods.filter((m) => m.Properties.AuthorizationType === 'NONE');
    expect(open.map((m) => m.Properties.OperationName).sort()).toEqual([
      'apiReference',
      'apiReferenceAsset',
      'openApiDocument',
    ]);
    for (const method of open) {
      expect(method.Properties).toMatchObject({
        HttpMethod: 'GET',
        ApiKeyRequired: false,
        Integration: { Type: 'AWS_PROXY' },
      });
      expect(method.Properties.AuthorizerId).toBeUndefined();
    }
    for (const pathPart of ['openapi.json', 'docs', '{asset}'])
      prod.hasResourceProperties('AWS::ApiGateway::Resource', { PathPart: pathPart });
  });

  it('has four usage plans whose numbers come from the plan table, with a margin above it', () => {
    const plans = Object.values(prod.findResources('AWS::ApiGateway::UsagePlan')) as {
      Properties: Record<string, any>;
    }[];
    expect(plans).toHaveLength(4);
    for (const plan of PLAN_NAMES) {
      const limits = limitsOf(plan);
      const numbers = usagePlanNumbers(limits);
      const found = plans.find((p) => p.Properties.UsagePlanName === `petstore-prod-${plan}`);
      expect(found?.Properties).toMatchObject({
        Throttle: { RateLimit: numbers.rateLimit, BurstLimit: numbers.burstLimit },
        Quota: { Limit: numbers.quota, Period: 'DAY' },
        ApiStages: [expect.objectContaining({ ApiId: expect.anything(), Stage: expect.anything() })],
      });
      expect(found?.Properties.Tags).toContainEqual({ Key: 'petstore:plan', Value: plan });
      expect(numbers.rateLimit * 60).toBeGreaterThan(limits.perMinute);
      expect(numbers.quota).toBeGreaterThan(limits.perDay);
      // Two minutes' allowance back to back (0:59 and 1:00) fits the bucket, up to the account burst.
      expect(numbers.burstLimit).toBeGreaterThanOrEqual(Math.min(2 * limits.perMinute, 5_000));
    }
    expect(usagePlanNumbers(limitsOf('free'))).toEqual({ rateLimit: 1.5, burstLimit: 120, quota: 1_500 });
    expect(usagePlanNumbers(limitsOf('business'))).toEqual({ rateLimit: 25, burstLimit: 2_000, quota: 150_000 });
    expect(usagePlanNumbers(limitsOf('enterprise'))).toEqual({ rateLimit: 125, burstLimit: 5_000, quota: 1_500_000 });
  });

  it('answers for API Gateway itself with the Error body and the right headers', () => {
    const responses = Object.values(prod.findResources('AWS::ApiGateway::GatewayResponse')) as {
      Properties: Record<string, any>;
    }[];
    expect(responses.map((r) => r.Properties.ResponseType).sort()).toEqual(Object.keys(GATEWAY_RESPONSES).sort());
    const byType = (type: string) =>
      responses.find((r) => r.Properties.ResponseType === type)?.Properties as Record<string, any>;
    for (const response of responses) {
      const body = JSON.parse(response.Properties.ResponseTemplates['application/json']);
      expect(body).toEqual({
        code: expect.any(String),
        message: expect.any(String),
        status: Number(response.Properties.StatusCode),
      });
      expect(response.Properties.ResponseParameters).toMatchObject({
        'gatewayresponse.header.Content-Type': "'application/json'",
        'gatewayresponse.header.Cache-Control': "'no-store'",
        'gatewayresponse.header.X-Request-Id': 'context.requestId',
        'gatewayresponse.header.X-Content-Type-Options': "'nosniff'",
      });
    }
    expect(byType('UNAUTHORIZED')).toMatchObject({
      StatusCode: '401',
      ResponseParameters: { 'gatewayresponse.header.WWW-Authenticate': `'Bearer realm="petstore"'` },
    });
    expect(byType('INVALID_API_KEY')).toMatchObject({
      StatusCode: '401',
      ResponseParameters: {
        'gatewayresponse.header.WWW-Authenticate': `'Bearer realm="petstore", error="invalid_token"'`,
      },
    });
    for (const type of ['THROTTLED', 'QUOTA_EXCEEDED']) {
      expect(byType(type)).toMatchObject({
        StatusCode: '429',
        ResponseParameters: { 'gatewayresponse.header.Retry-After': expect.stringMatching(/^'\d+'$/) },
      });
      expect(JSON.parse(byType(type).ResponseTemplates['application/json']).code).toBe('rate_limited');
    }
    expect(JSON.parse(byType('MISSING_AUTHENTICATION_TOKEN').ResponseTemplates['application/json'])).toMatchObject({
      code: 'not_found',
      status: 404,
    });
    // A failing authorizer or a late function is unavailability to retry; a crash is our bug, a 500 without Retry-After.
    for (const type of ['AUTHORIZER_FAILURE', 'AUTHORIZER_CONFIGURATION_ERROR', 'INTEGRATION_TIMEOUT']) {
      expect(byType(type)).toMatchObject({
        StatusCode: '503',
        ResponseParameters: { 'gatewayresponse.header.Retry-After': "'1'" },
      });
    }
    for (const type of ['INTEGRATION_FAILURE', 'DEFAULT_5XX']) {
      expect(byType(type).StatusCode).toBe('500');
      expect(byType(type).ResponseParameters['gatewayresponse.header.Retry-After']).toBeUndefined();
      expect(JSON.parse(byType(type).ResponseTemplates['application/json']).code).toBe('internal_error');
    }
  });

  it('answers an address the authorizer refused (its Deny) with the 429 the authorizer put in its context', () => {
    const accessDenied = (
      Object.values(prod.findResources('AWS::ApiGateway::GatewayResponse')) as { Properties: Record<string, any> }[]
    ).find((r) => r.Properties.ResponseType === 'ACCESS_DENIED')?.Properties as Record<string, any>;
    expect(accessDenied).toMatchObject({
      StatusCode: '429',
      ResponseParameters: {
        'gatewayresponse.header.Retry-After': 'context.authorizer.retryAfter',
        'gatewayresponse.header.X-RateLimit-Limit': 'context.authorizer.rateLimitLimit',
        'gatewayresponse.header.X-RateLimit-Remaining': 'context.authorizer.rateLimitRemaining',
        'gatewayresponse.header.X-RateLimit-Reset': 'context.authorizer.rateLimitReset',
        'gatewayresponse.header.RateLimit-Policy': 'context.authorizer.rateLimitPolicy',
        'gatewayresponse.header.RateLimit': 'context.authorizer.rateLimit',
      },
    });
    expect(accessDenied.ResponseTemplates['application/json']).toBe(
      '{"code":"$context.authorizer.code","message":"$context.authorizer.message","status":429}',
    );
  });

  it('limits requests per client address at the edge with a WAF web ACL on the stage', () => {
    prod.hasResourceProperties('AWS::WAFv2::WebACL', {
      Scope: 'REGIONAL',
      Rules: [
        Match.objectLike({
          Name: 'unauthenticated-per-address',
          Statement: {
            RateBasedStatement: Match.objectLike({
              AggregateKeyType: 'IP',
              EvaluationWindowSec: 60,
              Limit: WAF_RULES.unauthenticatedPerMinute,
            }),
          },
          Action: {
            Block: {
              CustomResponse: Match.objectLike({
                ResponseCode: 429,
                ResponseHeaders: Match.arrayWith([
                  { Name: 'Retry-After', Value: '60' },
                  { Name: 'X-Content-Type-Options', Value: 'nosniff' },
                ]),
              }),
            },
          },
        }),
        Match.objectLike({
          Name: 'flood-per-address',
          Statement: { RateBasedStatement: Match.objectLike({ Limit: WAF_RULES.floodPerMinute }) },
        }),
        // A body larger than any route accepts: 413 with the Error body, on any route, before the key is judged.
        Match.objectLike({
          Name: 'body-too-large',
          Priority: 2,
          Statement: {
            SizeConstraintStatement: {
              FieldToMatch: { Body: { OversizeHandling: 'MATCH' } },
              ComparisonOperator: 'GT',
              Size: 16_384,
              TextTransformations: [{ Priority: 0, Type: 'NONE' }],
            },
          },
          Action: {
            Block: {
              CustomResponse: {
                ResponseCode: 413,
                CustomResponseBodyKey: 'bodyTooLarge',
                ResponseHeaders: [
                  { Name: 'Cache-Control', Value: 'no-store' },
                  { Name: 'X-Content-Type-Options', Value: 'nosniff' },
                ],
              },
            },
          },
        }),
      ],
      CustomResponseBodies: Match.objectLike({
        bodyTooLarge: {
          ContentType: 'APPLICATION_JSON',
          Content:
            '{"code":"invalid_request","message":"The request body is larger than this API accepts (16,384 bytes).","status":413}',
        },
      }),
    });
    prod.resourceCountIs('AWS::WAFv2::WebACLAssociation', 1);
  });

  it('outputs the base URL and the table name', () => {
    prod.hasOutput('BaseUrl', Match.anyValue());
    prod.hasOutput('TableName', Match.anyValue());
  });
});

/**
 * Issue 50: the former pets layout (one `PET` partition listed by status through `byStatus`, ids
 * from the `SEQUENCE` counter) and the former key registry (`APIKEY`) are retired, and no function
 * keeps a right on them. Read from every policy statement of each stage's template
 * (test/support/template-rights.ts), not only from the statements the declarations make.
 */
describe('no right of the former layouts', () => {
  const FORMER_REQUESTS: readonly (readonly [FunctionName, DynamoDbRequest])[] = [
    ['listPets', { action: 'Query', partition: 'PET' }],
    ...(['available', 'pending', 'sold'] as const).map(
      (status) => ['listPets', { action: 'Query', index: 'byStatus', indexKey: status }] as const,
    ),
    ['createPet', { action: 'UpdateItem', partition: 'SEQUENCE' }],
    ['createPet', { action: 'GetItem', partition: 'PET' }],
    ['createPet', { action: 'PutItem', partition: 'PET' }],
    ['getPet', { action: 'GetItem', partition: 'PET' }],
    ['authorizer', { action: 'GetItem', partition: 'APIKEY' }],
  ];
  const roleOf = (template: Template, name: FunctionName): string =>
    functionRoles(template.toJSON())[functionLogicalId(template, titleOf(name))] as string;

  it("in both stages, no role may Query `PET` or `byStatus`, UpdateItem `SEQUENCE`, Get or Put `PET`, or GetItem `APIKEY`; each function's own rights are seen", () => {
    for (const [stage, template] of [
      ['prod', prod],
      ['staging', staging],
    ] as const) {
      const json = template.toJSON();
      for (const [name, request] of FORMER_REQUESTS)
        expect([stage, name, request, rolesAllowing(json, request)]).toEqual([stage, name, request, []]);
      // The same reading finds the rights the functions have (so that an empty answer above means something).
      const roles = (...names: FunctionName[]) => names.map((name) => roleOf(template, name)).sort();
      expect(rolesAllowing(json, { action: 'Query', partition: 'PET#3' })).toEqual(roles('listPets'));
      expect(rolesAllowing(json, { action: 'Query', index: 'petsByStatus', indexKey: 'available#3' })).toEqual(
        roles('listPets'),
      );
      expect(rolesAllowing(json, { action: 'GetItem', partition: 'PET#3' })).toEqual(roles('createPet', 'getPet'));
      expect(rolesAllowing(json, { action: 'PutItem', partition: 'PET#3' })).toEqual(roles('createPet'));
      expect(rolesAllowing(json, { action: 'UpdateItem', partition: 'RATE#key#0123456789abcdef' })).toEqual(
        roles(...OPERATION_IDS),
      );
      expect(rolesAllowing(json, { action: 'GetItem', partition: `APIKEY#${'0'.repeat(64)}` })).toEqual(
        roles('authorizer'),
      );
    }
  });

  it('would see such a right if one came back: the former rights planted in a copy of the template, or a table-wide one, are found', () => {
    const json = structuredClone(prod.toJSON()) as { Resources: Record<string, any> };
    const table = { 'Fn::GetAtt': [Object.keys(prod.findResources('AWS::DynamoDB::GlobalTable'))[0], 'Arn'] };
    const onItems = (action: string, keys: string[]) => ({
      Action: `dynamodb:${action}`,
      Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': keys } },
      Effect: 'Allow',
      Resource: table,
    });
    const plant = (name: FunctionName, ...statements: object[]) => {
      const [policy] = Object.values(json.Resources).filter(
        (resource) =>
          resource.Type === 'AWS::IAM::Policy' &&
          resource.Properties.Roles.some((role: { Ref: string }) => role.Ref === roleOf(prod, name)),
      );
      policy.Properties.PolicyDocument.Statement.push(...statements);
    };
    // As the template of de7ab16 granted them.
    plant('listPets', onItems('Query', ['PET#*', 'PET']), {
      Action: 'dynamodb:Query',
      Effect: 'Allow',
      Resource: [
        { 'Fn::Join': ['', [table, '/index/petsByStatus']] },
        { 'Fn::Join': ['', [table, '/index/byStatus']] },
      ],
    });
    plant(
      'createPet',
      onItems('UpdateItem', ['SEQUENCE']),
      onItems('GetItem', ['IDEMPOTENCY#*', 'PET#*', 'PET']),
      onItems('PutItem', ['PET#*', 'PET', 'IDEMPOTENCY#*']),
    );
    plant('getPet', onItems('GetItem', ['PET#*', 'PET']));
    plant('authorizer', onItems('GetItem', ['APIKEY#*', 'APIKEY']));
    // Each request is found allowed to the functions it was planted for (createPet's and getPet's GetItem of `PET` alike).
    const plantedFor = (request: DynamoDbRequest) =>
      FORMER_REQUESTS.filter(([, other]) => JSON.stringify(other) === JSON.stringify(request)).map(([name]) =>
        roleOf(prod, name),
      );
    for (const [, request] of FORMER_REQUESTS)
      expect([request, rolesAllowing(json, request)]).toEqual([request, plantedFor(request).sort()]);
    // A right on the whole table (no LeadingKeys), or on every resource, allows all of them.
    plant('apiDocs', { Action: 'dynamodb:*', Effect: 'Allow', Resource: '*' });
    for (const [, request] of FORMER_REQUESTS)
      expect([request, rolesAllowing(json, request)]).toEqual([
        request,
        [...plantedFor(request), roleOf(prod, 'apiDocs')].sort(),
      ]);
  });
});

describe('the bundled functions', () => {
  it('are bundled by esbuild without Docker, the listPets bundle serves pages against DynamoDB Local with its cursor secret from Secrets Manager, the docs bundle its files', async () => {
    const { app, template } = synth('staging', true);
    const assembly = app.synth();
    const listPets = template.findResources('AWS::Lambda::Function')[functionLogicalId(template, 'ListPets')] as {
      Properties: { Code: { S3Key: string } };
    };
    const assetHash = listPets.Properties.Code.S3Key.replace(/\.zip$/, '');
    const assetDir = join(assembly.directory, `asset.${assetHash}`);
    // Configured as the stack configures it: the secret's ARN, not its value (CURSOR_SECRET, set for
    // the test run, must lose), read from a stand-in for Secrets Manager.
    const secrets = await startFakeSecretsManager();
    Object.assign(process.env, { CURSOR_SECRET_ARN: secrets.secretArn, SECRETS_MANAGER_ENDPOINT: secrets.endpoint });
    try {
      const pets = new DynamoDbPetRepository(testDatabase().client, testDatabase().tableName);
      const rex = await pets.create({ name: 'Rex', categoryId: 1, status: 'available' });
      const bella = await pets.create({ name: 'Bella', categoryId: 1, status: 'available' });
      const { handler } = (await import(pathToFileURL(join(assetDir, 'index.mjs')).href)) as {
        handler: (event: APIGatewayProxyEvent, context: unknown) => Promise<APIGatewayProxyResult>;
      };
      const page = (query: Record<string, string>) =>
        handler(listPetsEvent(query, 'bundle-test'), lambdaContext('listPets', 10_000));
      const response = await page({ limit: '1' });
      expect(response.statusCode).toBe(200);
      expect(JSON.parse(response.body)).toEqual([rex]);
      expect(response.headers?.['X-RateLimit-Limit']).toBe('1000');
      const cursor = new URL(
        /^<([^>]+)>; rel="next"$/.exec(String(response.headers?.Link))?.[1] as string,
      ).searchParams.get('cursor') as string;
      // Signed with the secret's current value, read from Secrets Manager: not with the environment's.
      expect(new CursorCodec(secrets.current).read(cursor).kind).toBe('valid');
      expect(new CursorCodec(process.env.CURSOR_SECRET).read(cursor).kind).toBe('unknown-signature');
      expect([...new Set(secrets.calls)].sort()).toEqual(['AWSCURRENT', 'AWSPREVIOUS']);
      const next = await page({ limit: '1', cursor });
      expect([next.statusCode, JSON.parse(next.body)]).toEqual([200, [bella]]);
    } finally {
      delete process.env.CURSOR_SECRET_ARN;
      delete process.env.SECRETS_MANAGER_ENDPOINT;
      await secrets.close();
    }
    // Shipped with its source map (stack traces name the TypeScript sources), without their text.
    const sourceMap = JSON.parse(readFileSync(join(assetDir, 'index.mjs.map'), 'utf8')) as {
      sources: string[];
      sourcesContent?: unknown;
    };
    expect(sourceMap.sources.some((source) => source.endsWith('functions/listPets/handler.ts'))).toBe(true);
    expect(sourceMap.sourcesContent).toBeUndefined();
    // Bundled with the aliases the bench measures (infra/bundling.ts): no import of node:stream/web.
    expect(readFileSync(join(assetDir, 'index.mjs'), 'utf8')).not.toContain('node:stream/web');

    // The docs bundle carries the document and Swagger UI's files, and serves them from there.
    const docs = template.findResources('AWS::Lambda::Function')[functionLogicalId(template, 'ApiDocs')] as {
      Properties: { Code: { S3Key: string } };
    };
    const docsDir = join(assembly.directory, `asset.${docs.Properties.Code.S3Key.replace(/\.zip$/, '')}`);
    expect(readdirSync(join(docsDir, 'reference-assets')).sort()).toEqual(['swagger-ui-bundle.js', 'swagger-ui.css']);
    const docsModule = (await import(pathToFileURL(join(docsDir, 'index.mjs')).href)) as {
      handler: (event: unknown) => Promise<APIGatewayProxyResult>;
    };
    const documentResponse = await docsModule.handler({
      resource: '/openapi.json',
      path: '/openapi.json',
      pathParameters: null,
      requestContext: {},
    });
    // The committed document, with the server it was fetched from listed first (relative /v1).
    expect(JSON.parse(documentResponse.body)).toEqual({
      ...committedDocument,
      servers: [{ url: '/v1', description: expect.any(String) }, ...committedDocument.servers],
    });
    const asset = await docsModule.handler({
      resource: '/docs/{asset}',
      path: '/docs/swagger-ui.css',
      pathParameters: { asset: 'swagger-ui.css' },
      requestContext: {},
    });
    expect(asset).toMatchObject({ statusCode: 200, headers: { 'Content-Type': 'text/css; charset=utf-8' } });
    expect(asset.body).toBe(readFileSync(join(docsDir, 'reference-assets', 'swagger-ui.css'), 'utf8'));
  }, 120_000);
});
