import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  binomialAtLeast,
  failuresToFire,
  invocationsPerPeriod,
  judgedPeriods,
  periodChance,
  refusalFalseAlarmChance,
  rollbackChance,
  smallestCaught,
  worstRefusalFalseAlarm,
  type ProbeRate,
} from '../../infra/release-odds';
import {
  CANARY_OF,
  CANARY_PROBE_RATE,
  REFUSAL_GATE,
  RELEASE_CHECK_TARGETS,
  VERSION_GATE,
  VERSION_LATENCY_GATE,
} from '../../infra/releases';
import { ALL_CASES } from '../../bench/cases';
import { OPERATION_IDS, RELEASED_FUNCTIONS, type FunctionName } from '../../functions/table';
import { idWithPrefix, RELEASE_GATE_ID, removeOutdirs, synth } from '../support/synth';
import { LOCKOUT_ALARM } from '../../infra/lockout-alarm';
import { HOOK_TIMEOUT_SECONDS } from '../../shared/release-check/hook-deadlines';
import { WALK_FUNCTIONS } from '../../shared/release-check/success-walk';

/**
 * Issue 39: prod releases that catch a bad version. What CodeDeploy does with each function's
 * `live` alias, asserted on the synthesized templates: the check before any traffic, the gates on
 * the new version alone, their minimum counts, and the odds docs/releases.md states for them.
 */
type Resource = {
  Type: string;
  Properties: Record<string, any>;
  DependsOn?: string[];
  UpdatePolicy?: Record<string, any>;
};
type MetricQuery = {
  Id: string;
  Expression?: string;
  MetricStat?: {
    Metric: { Namespace: string; MetricName: string; Dimensions: { Name: string; Value: unknown }[] };
    Period: number;
    Stat: string;
  };
};

const templates = {} as Record<'staging' | 'prod', Template>;
beforeAll(() => {
  templates.staging = synth('staging').template;
  templates.prod = synth('prod').template;
});
afterAll(removeOutdirs);

const titleOf = (name: string) => name.charAt(0).toUpperCase() + name.slice(1);
/** Released through CodeDeploy, by construct id → declared name: the functions the table gives release probes. */
const RELEASED: Record<string, FunctionName> = Object.fromEntries(
  RELEASED_FUNCTIONS.map((name) => [titleOf(name), name]),
);
/** An operation's failures include its 5XX answers (its request metrics); another function's are its failed invocations. */
const isOperation = (name: string) => (OPERATION_IDS as readonly string[]).includes(name);
const resourcesOf = (template: Template, type: string) => template.findResources(type) as Record<string, Resource>;
/** Every resource `id` waits for, as CloudFormation orders them: its DependsOn, its Ref and GetAtt, theirs in turn. */
function dependenciesOf(template: Template, id: string): Set<string> {
  const resources = template.toJSON().Resources as Record<string, { DependsOn?: string | string[] }>;
  const direct = (of: string): string[] => {
    const resource = resources[of] ?? {};
    const named = new Set<string>([resource.DependsOn ?? []].flat());
    JSON.stringify(resource, (key, value) => {
      if (key === 'Ref' && typeof value === 'string' && value in resources) named.add(value);
      if (key === 'Fn::GetAtt' && Array.isArray(value) && typeof value[0] === 'string') named.add(value[0]);
      return value;
    });
    return [...named];
  };
  const seen = new Set<string>();
  const pending = direct(id);
  while (pending.length > 0) {
    const next = pending.pop() as string;
    if (seen.has(next)) continue;
    seen.add(next);
    pending.push(...direct(next));
  }
  return seen;
}
/** The version this update publishes of a function: the one its alias points at. */
const versionOf = (template: Template, id: string): string => {
  const alias = resourcesOf(template, 'AWS::Lambda::Alias')[idWithPrefix(template, 'AWS::Lambda::Alias', `${id}Live`)];
  return alias?.Properties.FunctionVersion['Fn::GetAtt'][0] as string;
};
const alarmOf = (template: Template, prefix: string) =>
  resourcesOf(template, 'AWS::CloudWatch::Alarm')[idWithPrefix(template, 'AWS::CloudWatch::Alarm', prefix)]
    ?.Properties as Record<string, any>;
const statOf = (alarm: Record<string, any>) =>
  Object.fromEntries(
    (alarm.Metrics as MetricQuery[])
      .filter((query) => query.MetricStat)
      .map(({ Id, MetricStat }) => [Id, { ...MetricStat!.Metric, Period: MetricStat!.Period, Stat: MetricStat!.Stat }]),
  );
const expressionOf = (alarm: Record<string, any>) =>
  (alarm.Metrics as MetricQuery[]).find((query) => query.Expression)?.Expression;

describe.each(['staging', 'prod'] as const)('releases of the %s stack', (stage) => {
  const template = () => templates[stage];

  it("one deployment group per released alias, CodeDeploy's role narrowed to them and the hook; not the key mirror, not the check", () => {
    const groups = resourcesOf(template(), 'AWS::CodeDeploy::DeploymentGroup');
    const [application] = Object.keys(resourcesOf(template(), 'AWS::CodeDeploy::Application'));
    const roleId = idWithPrefix(template(), 'AWS::IAM::Role', 'ReleasesRole');
    for (const id of Object.keys(RELEASED)) {
      const groupId = idWithPrefix(template(), 'AWS::CodeDeploy::DeploymentGroup', `${id}Release`);
      expect(groups[groupId]?.Properties).toMatchObject({
        ApplicationName: { Ref: application },
        DeploymentStyle: { DeploymentType: 'BLUE_GREEN', DeploymentOption: 'WITH_TRAFFIC_CONTROL' },
        ServiceRoleArn: { 'Fn::GetAtt': [roleId, 'Arn'] },
      });
      const alias = resourcesOf(template(), 'AWS::Lambda::Alias')[
        idWithPrefix(template(), 'AWS::Lambda::Alias', `${id}Live`)
      ];
      expect(alias?.UpdatePolicy?.CodeDeployLambdaAliasUpdate).toMatchObject({
        ApplicationName: { Ref: application },
        DeploymentGroupName: { Ref: groupId },
      });
    }
    expect(Object.keys(groups)).toHaveLength(Object.keys(RELEASED).length);
    for (const unreleased of ['KeyMirrorLive', 'ReleaseCheckLive'])
      expect(
        resourcesOf(template(), 'AWS::Lambda::Alias')[idWithPrefix(template(), 'AWS::Lambda::Alias', unreleased)]
          ?.UpdatePolicy,
      ).toBeUndefined();
    // No managed policy (AWS's would allow any alias of the account).
    const role = resourcesOf(template(), 'AWS::IAM::Role')[roleId];
    expect(role?.Properties.ManagedPolicyArns).toBeUndefined();
    expect(role?.Properties.AssumeRolePolicyDocument.Statement).toEqual([
      { Action: 'sts:AssumeRole', Effect: 'Allow', Principal: { Service: 'codedeploy.amazonaws.com' } },
    ]);
    const released = Object.keys(RELEASED)
      .sort()
      .map((id) => idWithPrefix(template(), 'AWS::Lambda::Function', id));
    const statements = resourcesOf(template(), 'AWS::IAM::Policy')[
      idWithPrefix(template(), 'AWS::IAM::Policy', 'ReleasesRoleDefaultPolicy')
    ]?.Properties.PolicyDocument.Statement;
    expect(statements).toEqual([
      {
        Action: ['lambda:GetAlias', 'lambda:GetProvisionedConcurrencyConfig', 'lambda:UpdateAlias'],
        Effect: 'Allow',
        Resource: [
          ...released.map((fn) => ({ 'Fn::GetAtt': [fn, 'Arn'] })),
          ...released.map((fn) => ({ 'Fn::Join': ['', [{ 'Fn::GetAtt': [fn, 'Arn'] }, ':*']] })),
        ],
      },
      {
        Action: 'lambda:InvokeFunction',
        Effect: 'Allow',
        Resource: { 'Fn::GetAtt': [idWithPrefix(template(), 'AWS::Lambda::Function', 'ReleaseCheck'), 'Arn'] },
      },
      { Action: 'cloudwatch:DescribeAlarms', Effect: 'Allow', Resource: '*' },
    ]);
  });

  it('each released alias runs the check before traffic: the hook, its wiring and its rights', () => {
    const checkFn = idWithPrefix(template(), 'AWS::Lambda::Function', 'ReleaseCheck');
    const checkPolicy = idWithPrefix(template(), 'AWS::IAM::Policy', 'ReleaseCheckRoleDefaultPolicy');
    const aliases = resourcesOf(template(), 'AWS::Lambda::Alias');
    const groups: string[] = [];
    for (const id of Object.keys(RELEASED)) {
      const alias = aliases[idWithPrefix(template(), 'AWS::Lambda::Alias', `${id}Live`)] as Resource;
      expect(alias.UpdatePolicy?.CodeDeployLambdaAliasUpdate.BeforeAllowTrafficHook).toEqual({ Ref: checkFn });
      // The hook's code, its list of versions, its rights and CodeDeploy's are updated before the alias moves.
      expect(alias.DependsOn).toEqual(
        expect.arrayContaining([
          checkFn,
          checkPolicy,
          idWithPrefix(template(), 'AWS::IAM::Role', 'ReleasesRole'),
          idWithPrefix(template(), 'AWS::IAM::Policy', 'ReleasesRoleDefaultPolicy'),
        ]),
      );
      groups.push(idWithPrefix(template(), 'AWS::CodeDeploy::DeploymentGroup', `${id}Release`));
    }
    const check = resourcesOf(template(), 'AWS::Lambda::Function')[checkFn]?.Properties as Record<string, any>;
    // The key's read (40 s), the check (90 s), the report (10 s), a second after each of the first two.
    expect([check.Timeout, HOOK_TIMEOUT_SECONDS]).toEqual([142, 142]);
    // Traced, like every function: a probe's invocation of the new version joins the check's trace.
    expect(check.TracingConfig).toEqual({ Mode: 'Active' });
    // The versions to check, by declared name: the ones this update publishes.
    const [, parts] = check.Environment.Variables[RELEASE_CHECK_TARGETS]['Fn::Join'] as [
      string,
      (string | { Ref: string })[],
    ];
    const targets = JSON.parse(
      parts.map((part) => (typeof part === 'string' ? part : `<${part.Ref}>`)).join(''),
    ) as Record<string, string>;
    expect(targets).toEqual(
      Object.fromEntries(Object.entries(RELEASED).map(([id, name]) => [name, `<${versionOf(template(), id)}>`])),
    );
    // Exactly the functions the check has probes for (it fails a release whose list differs).
    expect(Object.keys(targets).sort()).toEqual([...RELEASED_FUNCTIONS].sort());
    // Its rights: its own log group, its trace segments (X-Ray names no narrower resource), read the release key, invoke those versions, report to these deployment groups; nothing else.
    const [logs, xray, releaseKey, ...statements] = resourcesOf(template(), 'AWS::IAM::Policy')[checkPolicy]!.Properties
      .PolicyDocument.Statement as Record<string, any>[];
    expect([logs?.Action, xray]).toEqual([
      ['logs:CreateLogStream', 'logs:PutLogEvents'],
      { Action: ['xray:PutTelemetryRecords', 'xray:PutTraceSegments'], Effect: 'Allow', Resource: '*' },
    ]);
    expect(releaseKey).toEqual({
      Action: 'apigateway:GET',
      Effect: 'Allow',
      Resource: {
        'Fn::Join': [
          '',
          [
            'arn:',
            { Ref: 'AWS::Partition' },
            ':apigateway:',
            { Ref: 'AWS::Region' },
            '::/apikeys/',
            { Ref: 'ReleaseKey' },
          ],
        ],
      },
    });
    expect(check.Environment.Variables.RELEASE_API_KEY_ID).toEqual({ Ref: 'ReleaseKey' });
    statements.unshift(logs as Record<string, any>);
    expect(statements.map((statement) => statement.Action)).toEqual([
      ['logs:CreateLogStream', 'logs:PutLogEvents'],
      'codedeploy:PutLifecycleEventHookExecutionStatus',
      'lambda:InvokeFunction',
    ]);
    expect(statements[0]?.Resource).toEqual({
      'Fn::GetAtt': [idWithPrefix(template(), 'AWS::Logs::LogGroup', 'ReleaseCheckLogs'), 'Arn'],
    });
    const application = Object.keys(resourcesOf(template(), 'AWS::CodeDeploy::Application'))[0];
    expect(new Set(statements[1]?.Resource)).toEqual(
      new Set(
        groups.map((group) => ({
          'Fn::Join': [
            '',
            [
              'arn:',
              { Ref: 'AWS::Partition' },
              ':codedeploy:',
              { Ref: 'AWS::Region' },
              ':',
              { Ref: 'AWS::AccountId' },
              ':deploymentgroup:',
              { Ref: application },
              '/',
              { Ref: group },
            ],
          ],
        })),
      ),
    );
    expect(statements[1]?.Resource).toHaveLength(groups.length);
    // The released functions' qualified ARNs: a policy the same at every release (no IAM propagation to wait for).
    const qualified = (id: string) => ({
      'Fn::Join': ['', [{ 'Fn::GetAtt': [idWithPrefix(template(), 'AWS::Lambda::Function', id), 'Arn'] }, ':*']],
    });
    expect(new Set(statements[2]?.Resource)).toEqual(new Set(Object.keys(RELEASED).map(qualified)));
    expect(statements[2]?.Resource).toHaveLength(Object.keys(RELEASED).length);
    for (const statement of statements) expect(statement.Effect).toBe('Allow');
  });

  it("gives the check a release key of the stage's own, in the Business plan, which the mirror knows before the key is in its plan (issue 51, finding 2)", () => {
    const keys = resourcesOf(templates.prod, 'AWS::ApiGateway::ApiKey');
    // API Gateway draws its value: no template holds it.
    expect(keys).toEqual({
      ReleaseKey: {
        Type: 'AWS::ApiGateway::ApiKey',
        Properties: {
          Name: 'petstore-prod-release-check',
          Description: expect.stringContaining('release check'),
          Enabled: true,
        },
      },
    });
    // Each stage its own: both may share an account.
    expect(
      Object.values(resourcesOf(templates.staging, 'AWS::ApiGateway::ApiKey')).map((key) => key.Properties.Name),
    ).toEqual(['petstore-staging-release-check']);
    const inPlan = resourcesOf(template(), 'AWS::ApiGateway::UsagePlanKey');
    expect(Object.values(inPlan).map((resource) => resource.Properties)).toEqual([
      {
        KeyId: { Ref: 'ReleaseKey' },
        KeyType: 'API_KEY',
        UsagePlanId: { Ref: idWithPrefix(template(), 'AWS::ApiGateway::UsagePlan', 'ApiBusinessUsagePlan') },
      },
    ]);
    // The mirror's new version (with the key's id) is live before the key joins the plan, so no mirror copies it as a customer's key.
    const mirrorFn = idWithPrefix(template(), 'AWS::Lambda::Function', 'KeyMirror');
    expect(
      resourcesOf(template(), 'AWS::Lambda::Function')[mirrorFn]?.Properties.Environment.Variables.RELEASE_API_KEY_ID,
    ).toEqual({ Ref: 'ReleaseKey' });
    expect(Object.values(inPlan)[0]?.DependsOn).toEqual(
      expect.arrayContaining([idWithPrefix(template(), 'AWS::Lambda::Alias', 'KeyMirrorLive')]),
    );
    // The key itself depends on nothing. Its place in the plan, and the mirror's new version, come only
    // after every released alias has moved (usage plan → stage → deployment → methods → aliases), so
    // after the check: which is why the check forgives a new key's refusal (docs/release-check.md).
    expect(resourcesOf(templates.prod, 'AWS::ApiGateway::ApiKey').ReleaseKey?.DependsOn).toBeUndefined();
    const after = dependenciesOf(templates.prod, Object.keys(inPlan)[0] as string);
    for (const id of Object.keys(RELEASED))
      expect([id, after.has(idWithPrefix(templates.prod, 'AWS::Lambda::Alias', `${id}Live`))]).toEqual([id, true]);
    expect(
      dependenciesOf(templates.prod, mirrorFn).has(idWithPrefix(templates.prod, 'AWS::Lambda::Alias', 'ListPetsLive')),
    ).toBe(true);
    expect(template().toJSON().Outputs.ReleaseKeyId.Value).toEqual({ Ref: 'ReleaseKey' });
  });

  it("runs the release prober every minute where a canary runs (prod), with rights to read the walked functions' aliases, invoke their versions and read the release key, and nothing else (issue 51, finding 3)", () => {
    const probed = ['Authorizer', 'CreatePet', 'GetPet', 'ListPets'].map((id) =>
      idWithPrefix(template(), 'AWS::Lambda::Function', id),
    );
    const arnOf = (fn: string) => ({ 'Fn::GetAtt': [fn, 'Arn'] });
    const proberFn = idWithPrefix(template(), 'AWS::Lambda::Function', 'ReleaseProber');
    const variables = resourcesOf(template(), 'AWS::Lambda::Function')[proberFn]?.Properties.Environment.Variables;
    expect([variables.RELEASE_API_KEY_ID, variables.METRICS_NAMESPACE, variables.TABLE_NAME]).toEqual([
      { Ref: 'ReleaseKey' },
      `PetStore/${stage}`,
      undefined,
    ]);
    // The functions it reads and probes, by their names in the table: the walk's four, not the docs.
    expect(variables.CANARY_PROBE_FUNCTIONS).toEqual({
      'Fn::Join': [
        '',
        [
          '{"authorizer":"',
          arnOf(probed[0]!),
          '","createPet":"',
          arnOf(probed[1]!),
          '","getPet":"',
          arnOf(probed[2]!),
          '","listPets":"',
          arnOf(probed[3]!),
          '"}',
        ],
      ],
    });
    const policy = resourcesOf(template(), 'AWS::IAM::Policy')[
      idWithPrefix(template(), 'AWS::IAM::Policy', 'ReleaseProberRoleDefaultPolicy')
    ];
    const statements = (
      policy!.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[]
    ).filter((statement) => ![statement.Action].flat().some((action) => /^(logs|xray):/.test(action)));
    expect(statements.map(({ Action, Resource }) => [Action, Resource])).toEqual([
      ['lambda:GetAlias', [...probed.map(arnOf), ...probed.map((fn) => ({ 'Fn::Join': ['', [arnOf(fn), ':live']] }))]],
      ['lambda:InvokeFunction', probed.map((fn) => ({ 'Fn::Join': ['', [arnOf(fn), ':*']] }))],
      [
        'apigateway:GET',
        {
          'Fn::Join': [
            '',
            [
              'arn:',
              { Ref: 'AWS::Partition' },
              ':apigateway:',
              { Ref: 'AWS::Region' },
              '::/apikeys/',
              { Ref: 'ReleaseKey' },
            ],
          ],
        },
      ],
    ]);
    const rules = Object.entries(resourcesOf(template(), 'AWS::Events::Rule')).filter(([id]) =>
      id.startsWith('ReleaseProberSchedule'),
    );
    const proberAlias = idWithPrefix(template(), 'AWS::Lambda::Alias', 'ReleaseProberLive');
    if (stage === 'staging') {
      // All at once: no alias ever shifts, so nothing runs it.
      expect(rules).toEqual([]);
    } else {
      expect(rules.map(([, rule]) => rule.Properties)).toEqual([
        expect.objectContaining({
          ScheduleExpression: 'rate(1 minute)',
          State: 'ENABLED',
          Targets: [
            expect.objectContaining({
              Arn: { Ref: proberAlias },
              RetryPolicy: { MaximumRetryAttempts: 0, MaximumEventAgeInSeconds: 60 },
            }),
          ],
        }),
      ]);
    }
    // A probed alias moves only once the prober, its rights and its schedule are in place.
    for (const id of ['Authorizer', 'CreatePet', 'GetPet', 'ListPets']) {
      const after = dependenciesOf(template(), idWithPrefix(template(), 'AWS::Lambda::Alias', `${id}Live`));
      const needed = [
        proberAlias,
        idWithPrefix(template(), 'AWS::IAM::Policy', 'ReleaseProberRoleDefaultPolicy'),
        ...rules.map(([ruleId]) => ruleId),
      ];
      expect([id, needed.filter((resource) => !after.has(resource))]).toEqual([id, []]);
    }
  });

  it('pages when the authorizer refuses nearly every request, whichever version does (issue 51, finding 1): a stage alarm on refusals against the requests served', () => {
    const alarm = alarmOf(template(), 'AuthorizerLockoutAlarm');
    const { minRefusals, periodMinutes, periods } = LOCKOUT_ALARM;
    expect(LOCKOUT_ALARM).toEqual({ refusedPercent: 90, minRefusals: 20, periodMinutes: 5, periods: 2 });
    expect([
      alarm.EvaluationPeriods,
      alarm.DatapointsToAlarm,
      alarm.Threshold,
      alarm.ComparisonOperator,
      alarm.TreatMissingData,
    ]).toEqual([periods, periods, 1, 'GreaterThanOrEqualToThreshold', 'notBreaching']);
    // Notifies the topic (test/infra/stack.test.ts: every alarm but the gates), and stops no release: no deployment group watches it.
    expect(alarm.AlarmActions).toHaveLength(1);
    const lockoutId = idWithPrefix(template(), 'AWS::CloudWatch::Alarm', 'AuthorizerLockoutAlarm');
    for (const group of Object.values(resourcesOf(template(), 'AWS::CodeDeploy::DeploymentGroup')))
      expect(JSON.stringify(group.Properties.AlarmConfiguration ?? {})).not.toContain(lockoutId);
    const stats = statOf(alarm);
    const namespace = `PetStore/${stage}`;
    expect(stats.refused).toEqual({
      Namespace: namespace,
      MetricName: 'Refusals',
      Dimensions: [{ Name: 'function', Value: 'authorizer' }],
      Period: periodMinutes * 60,
      Stat: 'Sum',
    });
    // Every operation's requests, by its [operation] dimension set.
    const served = Object.entries(stats).filter(([id]) => id !== 'refused');
    expect(served.map(([, stat]) => stat)).toEqual(
      OPERATION_IDS.map((operation) => ({
        Namespace: namespace,
        MetricName: 'Requests',
        Dimensions: [{ Name: 'operation', Value: operation }],
        Period: periodMinutes * 60,
        Stat: 'Sum',
      })),
    );
    // The expression as CloudWatch reads it, worked on a period's numbers.
    const fires = (refused: number | undefined, servedCounts: (number | undefined)[]) => {
      const values: Record<string, number | undefined> = {
        refused,
        ...Object.fromEntries(served.map(([id], index) => [id, servedCounts[index]])),
      };
      const js = (expressionOf(alarm) as string)
        .replace(/FILL\((\w+), 0\)/g, (_, id: string) => `(${values[id] ?? 0})`)
        .replace(/\bAND\b/g, '&&')
        .replace(/^IF\((.*), 1, 0\)$/, '(($1) ? 1 : 0)');
      expect(js).not.toMatch(/[A-Za-z]/);
      return (new Function(`return ${js};`) as () => number)();
    };
    const none = OPERATION_IDS.map(() => undefined);
    // Everyone refused, at 4 requests a minute or more: fires (each period of 5 minutes).
    expect(fires(minRefusals, none)).toBe(1);
    expect(fires(250, none)).toBe(1);
    // Fewer than 20 refusals in 5 minutes: too few to judge.
    expect(fires(minRefusals - 1, none)).toBe(0);
    // Refused share at 90 % or under: quiet (20 refused, 3 served is 87 %; 90 of 100 is 90 %, not over).
    expect(fires(20, [3, ...none.slice(1)])).toBe(0);
    expect(
      fires(
        90,
        OPERATION_IDS.map((_, index) => (index === 0 ? 10 : undefined)),
      ),
    ).toBe(0);
    expect(
      fires(
        91,
        OPERATION_IDS.map((_, index) => (index === 0 ? 9 : undefined)),
      ),
    ).toBe(1);
    // Every operation's requests count as served: 100 refused beside 4 served by each of three or more is 89 % at most.
    expect(
      fires(
        100,
        OPERATION_IDS.map(() => 4),
      ),
    ).toBe(0);
    expect(fires(100, [4, ...none.slice(1)])).toBe(1);
    expect(fires(undefined, none)).toBe(0);
  });

  it('a release that failed or was stopped (and so rolled back) notifies the alarm topic, and an existing topic of the stage, naming the function and the version (issue 51, finding 4)', () => {
    const existing = 'arn:aws:sns:eu-west-1:123456789012:ops';
    for (const [built, topics] of [
      [template(), 1],
      [synth(stage, false, { alarmTopicArn: existing }).template, 2],
    ] as const) {
      const topic = idWithPrefix(built, 'AWS::SNS::Topic', 'AlarmTopic');
      const roleId = idWithPrefix(built, 'AWS::IAM::Role', 'ReleaseNoticesRole');
      const policyId = idWithPrefix(built, 'AWS::IAM::Policy', 'ReleaseNoticesRoleDefaultPolicy');
      const [application] = Object.keys(resourcesOf(built, 'AWS::CodeDeploy::Application'));
      const rules = resourcesOf(built, 'AWS::Events::Rule');
      for (const id of Object.keys(RELEASED)) {
        const ruleId = idWithPrefix(built, 'AWS::Events::Rule', `${id}ReleaseEnded`);
        const rule = rules[ruleId]?.Properties as Record<string, any>;
        expect(rule.EventPattern).toEqual({
          source: ['aws.codedeploy'],
          'detail-type': ['CodeDeploy Deployment State-change Notification'],
          detail: {
            application: [{ Ref: application }],
            deploymentGroup: [{ Ref: idWithPrefix(built, 'AWS::CodeDeploy::DeploymentGroup', `${id}Release`) }],
            state: ['FAILURE', 'STOP'],
          },
        });
        expect(rule.Targets.map((target: Record<string, any>) => [target.Arn, target.RoleArn])).toEqual(
          [{ Ref: topic }, existing].slice(0, topics).map((arn) => [arn, { 'Fn::GetAtt': [roleId, 'Arn'] }]),
        );
        for (const target of rule.Targets) {
          expect(target.InputTransformer.InputPathsMap).toEqual({
            'detail-state': '$.detail.state',
            'detail-deploymentId': '$.detail.deploymentId',
          });
          // The function, and the version this update publishes (the one its alias moves to).
          const [, parts] = target.InputTransformer.InputTemplate['Fn::Join'] as [string, unknown[]];
          expect(parts).toEqual([
            `"PetStore-${stage}: the release of ${id} version `,
            { 'Fn::GetAtt': [versionOf(built, id), 'Version'] },
            expect.stringMatching(
              /^ did not finish \(CodeDeploy state <detail-state>, deployment <detail-deploymentId>\): its live alias stays on, or returns to, the version before\./,
            ),
          ]);
        }
        // Updated, and able to publish, before the alias moves.
        const alias = resourcesOf(built, 'AWS::Lambda::Alias')[idWithPrefix(built, 'AWS::Lambda::Alias', `${id}Live`)];
        expect(alias?.DependsOn).toEqual(expect.arrayContaining([ruleId, roleId, policyId]));
      }
      expect(Object.keys(rules).filter((id) => /ReleaseEnded[0-9A-F]{8}$/.test(id))).toHaveLength(
        Object.keys(RELEASED).length,
      );
      // EventBridge publishes as a role of this account's rules; the topic's policy lets in no events service of any account.
      expect(resourcesOf(built, 'AWS::IAM::Role')[roleId]?.Properties.AssumeRolePolicyDocument.Statement).toEqual([
        {
          Action: 'sts:AssumeRole',
          Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } },
          Effect: 'Allow',
          Principal: { Service: 'events.amazonaws.com' },
        },
      ]);
      expect(resourcesOf(built, 'AWS::IAM::Policy')[policyId]?.Properties.PolicyDocument.Statement).toEqual([
        {
          Action: ['kms:Decrypt', 'kms:GenerateDataKey*'],
          Effect: 'Allow',
          Resource: { 'Fn::GetAtt': [idWithPrefix(built, 'AWS::KMS::Key', 'AlarmTopicKey'), 'Arn'] },
        },
        {
          Action: 'sns:Publish',
          Effect: 'Allow',
          Resource: topics === 1 ? { Ref: topic } : [existing, { Ref: topic }],
        },
      ]);
      const topicPolicy = Object.values(resourcesOf(built, 'AWS::SNS::TopicPolicy'))[0]?.Properties.PolicyDocument
        .Statement as Record<string, any>[];
      expect(JSON.stringify(topicPolicy)).not.toContain('events.amazonaws.com');
      // A notice not delivered fires an alarm on the rules' FailedInvocations, which notifies by CloudWatch's path.
      const failed = alarmOf(built, 'ReleaseNoticeFailedAlarm');
      const ruleIds = Object.keys(RELEASED).map((id) => idWithPrefix(built, 'AWS::Events::Rule', `${id}ReleaseEnded`));
      expect(Object.values(statOf(failed))).toEqual(
        ruleIds.map((rule) => ({
          Namespace: 'AWS/Events',
          MetricName: 'FailedInvocations',
          Dimensions: [{ Name: 'RuleName', Value: { Ref: rule } }],
          Period: 300,
          Stat: 'Sum',
        })),
      );
      expect([expressionOf(failed), failed.Threshold, failed.ComparisonOperator, failed.AlarmActions?.[0]]).toEqual([
        Object.keys(statOf(failed))
          .map((id) => `FILL(${id}, 0)`)
          .join(' + '),
        1,
        'GreaterThanOrEqualToThreshold',
        { Ref: topic },
      ]);
      // Its role, for an existing topic's owner to allow.
      built.hasOutput('ReleaseNoticesRoleArn', { Value: { 'Fn::GetAtt': [roleId, 'Arn'] } });
    }
  });

  it(
    stage === 'prod'
      ? "prod: a quarter of the traffic for 30 minutes, gated by the stage's alarms and the new version's own"
      : 'staging: all at once, the check before traffic its only gate',
    () => {
      const groups = resourcesOf(template(), 'AWS::CodeDeploy::DeploymentGroup');
      const configs = resourcesOf(template(), 'AWS::CodeDeploy::DeploymentConfig');
      const alarm = (prefix: string) => ({ Name: { Ref: idWithPrefix(template(), 'AWS::CloudWatch::Alarm', prefix) } });
      if (stage === 'staging') {
        expect(configs).toEqual({});
        for (const group of Object.values(groups))
          expect(group.Properties).toMatchObject({
            DeploymentConfigName: 'CodeDeployDefault.LambdaAllAtOnce',
            AlarmConfiguration: { Enabled: false },
          });
        return;
      }
      // No name: CloudFormation makes one, so two stages of an account never collide.
      const [configId, config] = Object.entries(configs)[0] as [string, Resource];
      expect(Object.keys(configs)).toHaveLength(1);
      expect(config.Properties).toEqual({
        ComputePlatform: 'Lambda',
        TrafficRoutingConfig: {
          Type: 'TimeBasedCanary',
          TimeBasedCanary: { CanaryPercentage: CANARY_OF.prod?.percent, CanaryInterval: CANARY_OF.prod?.minutes },
        },
      });
      expect(CANARY_OF.prod).toEqual({ percent: 25, minutes: 30 });
      for (const id of Object.keys(RELEASED)) {
        const own =
          id === 'Authorizer'
            ? [alarm('AuthorizerReleaseRefusalAlarm'), alarm('AuthorizerReleaseProbeAlarm')]
            : [alarm(`${id}ReleaseAlarm`)];
        // The functions the prober probes also stop on its gate: a canary it could not probe is not judged.
        if ((WALK_FUNCTIONS as readonly string[]).includes(RELEASED[id] as string))
          own.push(alarm('CanaryProbesReleaseAlarm'));
        expect(
          groups[idWithPrefix(template(), 'AWS::CodeDeploy::DeploymentGroup', `${id}Release`)]?.Properties,
        ).toMatchObject({
          DeploymentConfigName: { Ref: configId },
          AlarmConfiguration: {
            Enabled: true,
            Alarms: [alarm('Api5xxAlarm'), alarm('ApiLatencyAlarm'), alarm(`${id}ReleaseLatencyAlarm`), ...own],
          },
          AutoRollbackConfiguration: { Enabled: true, Events: ['DEPLOYMENT_FAILURE', 'DEPLOYMENT_STOP_ON_ALARM'] },
        });
      }
    },
  );

  it("each function's gates see its new version alone: Lambda's metrics by ExecutedVersion, the 5XX answers by version, with minimum counts", () => {
    if (stage === 'staging') {
      // All at once: no gate could stop anything, so there is none.
      expect(
        Object.keys(resourcesOf(template(), 'AWS::CloudWatch::Alarm')).filter((id) => RELEASE_GATE_ID.test(id)),
      ).toEqual([]);
      return;
    }
    for (const [id, name] of Object.entries(RELEASED)) {
      const fn = idWithPrefix(template(), 'AWS::Lambda::Function', id);
      const version = { 'Fn::GetAtt': [versionOf(template(), id), 'Version'] };
      const onAlias = [
        { Name: 'FunctionName', Value: { Ref: fn } },
        { Name: 'Resource', Value: { 'Fn::Join': ['', [{ Ref: fn }, ':live']] } },
      ];
      const ofVersion = [{ Name: 'ExecutedVersion', Value: version }, ...onAlias];
      const lambda = (MetricName: string, Stat: string, Dimensions = ofVersion) => ({
        Namespace: 'AWS/Lambda',
        MetricName,
        Dimensions,
        Period: 300,
        Stat,
      });
      // The release prober's counts of the version (shared/release-check/canary-probe-metrics.ts), by the function's name in the table.
      const probed = (MetricName: string) => ({
        Namespace: `PetStore/${stage}`,
        MetricName,
        Dimensions: [
          { Name: 'function', Value: name },
          { Name: 'version', Value: version },
        ],
        Period: 300,
        Stat: 'Sum',
      });
      const isProbed = ['authorizer', 'createPet', 'getPet', 'listPets'].includes(name);

      // Slowness as a count: over 1 % of at least 10 invocations took 1.5 s or more, at least 2 of them.
      const latency = alarmOf(template(), `${id}ReleaseLatencyAlarm`);
      expect(latency).toMatchObject({
        Threshold: 1,
        ComparisonOperator: 'GreaterThanThreshold',
        EvaluationPeriods: 1,
        TreatMissingData: 'notBreaching',
      });
      expect(expressionOf(latency)).toBe(
        'IF((invocations >= 10) AND (FILL(slow, 0) >= 2), 100 * FILL(slow, 0) / invocations, 0)',
      );
      expect(statOf(latency)).toEqual({
        invocations: lambda('Invocations', 'Sum'),
        slow: lambda('Duration', 'TC(1500:)'),
      });

      // A gate judges a release, which CodeDeploy rolls back by itself: it notifies no one (two
      // failures of ten invocations between releases are no reason to wake anyone).
      const own =
        id === 'Authorizer' ? ['AuthorizerReleaseRefusalAlarm', 'AuthorizerReleaseProbeAlarm'] : [`${id}ReleaseAlarm`];
      for (const gate of [latency, ...own.map((prefix) => alarmOf(template(), prefix))])
        expect(gate.AlarmActions).toBeUndefined();

      if (id === 'Authorizer') {
        const refusals = alarmOf(template(), 'AuthorizerReleaseRefusalAlarm');
        expect(refusals).toMatchObject({
          Threshold: 1,
          ComparisonOperator: 'GreaterThanOrEqualToThreshold',
          EvaluationPeriods: 1,
          TreatMissingData: 'notBreaching',
        });
        expect(expressionOf(refusals)).toBe(
          'IF((FILL(newRefusals, 0) >= 20) AND ((FILL(allInvocations, 0) - FILL(newInvocations, 0)) >= 20) AND ' +
            '(FILL(newRefusals, 0) * (FILL(allInvocations, 0) - FILL(newInvocations, 0)) > 3 * (FILL(allRefusals, 0) - FILL(newRefusals, 0)) * FILL(newInvocations, 0)), 1, 0)',
        );
        const refused = (Dimensions: unknown[]) => ({
          Namespace: `PetStore/${stage}`,
          MetricName: 'Refusals',
          Dimensions,
          Period: 300,
          Stat: 'Sum',
        });
        expect(statOf(refusals)).toEqual({
          newRefusals: refused([
            { Name: 'function', Value: 'authorizer' },
            { Name: 'version', Value: version },
          ]),
          allRefusals: refused([{ Name: 'function', Value: 'authorizer' }]),
          newInvocations: lambda('Invocations', 'Sum'),
          allInvocations: lambda('Invocations', 'Sum', onAlias),
        });
        // At launch traffic: the release key, sent by the prober, refused (or answered wrongly) over 1 % of at least 10 times, at least 5.
        const probes = alarmOf(template(), 'AuthorizerReleaseProbeAlarm');
        expect(probes).toMatchObject({
          Threshold: 1,
          ComparisonOperator: 'GreaterThanThreshold',
          EvaluationPeriods: 1,
          TreatMissingData: 'notBreaching',
        });
        expect(expressionOf(probes)).toBe(
          'IF((FILL(probes, 0) >= 10) AND (FILL(failedProbes, 0) >= 5), 100 * FILL(failedProbes, 0) / FILL(probes, 0), 0)',
        );
        expect(statOf(probes)).toEqual({ probes: probed('CanaryProbes'), failedProbes: probed('FailedCanaryProbes') });
        // Its failed invocations are its 401s: no failure gate.
        expect(
          Object.keys(resourcesOf(template(), 'AWS::CloudWatch::Alarm')).filter((alarmId) =>
            /^AuthorizerReleaseAlarm/.test(alarmId),
          ),
        ).toEqual([]);
        continue;
      }
      const failures = alarmOf(template(), `${id}ReleaseAlarm`);
      expect(failures).toMatchObject({
        Threshold: 1,
        ComparisonOperator: 'GreaterThanThreshold',
        EvaluationPeriods: 1,
        TreatMissingData: 'notBreaching',
      });
      // The alias's invocations of the version, and the prober's requests to it (the operations it walks); its failures counted once each.
      const invocations = isProbed ? 'FILL(aliasInvocations, 0) + FILL(probes, 0)' : 'FILL(aliasInvocations, 0)';
      const failed = [
        'FILL(errors, 0) + FILL(throttles, 0)',
        ...(isProbed ? ['FILL(failedProbes, 0)'] : []),
        ...(isOperation(name) ? ['FILL(answers5xx, 0)'] : []),
      ].join(' + ');
      expect(expressionOf(failures)).toBe(
        `IF(((${invocations}) >= 10) AND ((${failed}) >= 5), 100 * (${failed}) / (${invocations}), 0)`,
      );
      expect(statOf(failures)).toEqual({
        aliasInvocations: lambda('Invocations', 'Sum'),
        errors: lambda('Errors', 'Sum'),
        throttles: lambda('Throttles', 'Sum'),
        ...(isProbed ? { probes: probed('CanaryProbes'), failedProbes: probed('FailedCanaryProbes') } : {}),
        ...(!isOperation(name)
          ? {}
          : {
              answers5xx: {
                Namespace: `PetStore/${stage}`,
                MetricName: 'Status5xx',
                Dimensions: [
                  { Name: 'operation', Value: name },
                  { Name: 'version', Value: version },
                ],
                Period: 300,
                Stat: 'Sum',
              },
            }),
      });
    }
    expect(VERSION_GATE).toEqual({ periodMinutes: 5, percent: 1, minInvocations: 10, minFailures: 5 });
    // The prober's gate: one run in 5 minutes that failed or never came (dropped by Lambda, or not invoked by EventBridge), notifying no one.
    const prober = alarmOf(template(), 'CanaryProbesReleaseAlarm');
    expect(prober).toMatchObject({
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      EvaluationPeriods: 1,
      TreatMissingData: 'notBreaching',
    });
    expect([expressionOf(prober), prober.AlarmActions]).toEqual([
      'FILL(errors, 0) + FILL(dropped, 0) + FILL(refused, 0)',
      undefined,
    ]);
    const proberFn = [
      { Name: 'FunctionName', Value: { Ref: idWithPrefix(template(), 'AWS::Lambda::Function', 'ReleaseProber') } },
    ];
    expect(statOf(prober)).toEqual({
      errors: { Namespace: 'AWS/Lambda', MetricName: 'Errors', Dimensions: proberFn, Period: 300, Stat: 'Sum' },
      dropped: {
        Namespace: 'AWS/Lambda',
        MetricName: 'AsyncEventsDropped',
        Dimensions: proberFn,
        Period: 300,
        Stat: 'Sum',
      },
      refused: {
        Namespace: 'AWS/Events',
        MetricName: 'FailedInvocations',
        Dimensions: [
          { Name: 'RuleName', Value: { Ref: idWithPrefix(template(), 'AWS::Events::Rule', 'ReleaseProberSchedule') } },
        ],
        Period: 300,
        Stat: 'Sum',
      },
    });
    expect(VERSION_LATENCY_GATE).toEqual({ slowMs: 1_500, percent: 1, minInvocations: 10, minSlow: 2 });
    expect(REFUSAL_GATE).toEqual({ factor: 3, minRefusals: 20, minOtherInvocations: 20 });
  });

  it("the authorizer writes its refusals to the stage's namespace", () => {
    const authorizer = resourcesOf(template(), 'AWS::Lambda::Function')[
      idWithPrefix(template(), 'AWS::Lambda::Function', 'Authorizer')
    ];
    expect(authorizer?.Properties.Environment.Variables.METRICS_NAMESPACE).toBe(`PetStore/${stage}`);
  });
});

describe('releasing a fix while an alarm fires', () => {
  it("-c ignoreReleaseAlarms=true keeps prod's canary and the check before traffic, but lets CodeDeploy ignore the alarms for that deploy", () => {
    const { template } = synth('prod', false, { ignoreReleaseAlarms: 'true' });
    const [config] = Object.keys(resourcesOf(template, 'AWS::CodeDeploy::DeploymentConfig'));
    for (const group of Object.values(resourcesOf(template, 'AWS::CodeDeploy::DeploymentGroup'))) {
      expect(group.Properties).toMatchObject({
        DeploymentConfigName: { Ref: config },
        AlarmConfiguration: { Enabled: false },
      });
    }
    for (const id of Object.keys(RELEASED)) {
      const alias = resourcesOf(template, 'AWS::Lambda::Alias')[
        idWithPrefix(template, 'AWS::Lambda::Alias', `${id}Live`)
      ];
      expect(alias?.UpdatePolicy?.CodeDeployLambdaAliasUpdate.BeforeAllowTrafficHook).toEqual({
        Ref: idWithPrefix(template, 'AWS::Lambda::Function', 'ReleaseCheck'),
      });
    }
  });
});

describe('the odds of a prod release (docs/releases.md#the-odds)', () => {
  const canary = CANARY_OF.prod!;
  const docs = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'releases.md'), 'utf8');
  const percent = (chance: number, digits = 1) => `${(100 * chance).toFixed(digits)} %`;
  /** The bench's mix (bench/cost.ts: the cost shares the operations' bench cases declare), as requests a minute of 50 to the API. */
  const MIX_AT_50: Record<string, number> = {};
  for (const { fn, dynamoDb } of ALL_CASES)
    if (dynamoDb?.costShare !== undefined) MIX_AT_50[fn] = (MIX_AT_50[fn] ?? 0) + dynamoDb.costShare;
  for (const fn of Object.keys(MIX_AT_50)) MIX_AT_50[fn] = Math.round(50 * (MIX_AT_50[fn] as number));
  const PROBES = CANARY_PROBE_RATE;
  const NONE = { least: 0, most: 0 };
  const row = (label: string, rpm: number, probes: ProbeRate) =>
    `| ${label} | ${invocationsPerPeriod({ canary, gate: VERSION_GATE, requestsPerMinute: rpm, probes }, 'catching')} | ${percent(rollbackChance({ canary, gate: VERSION_GATE, requestsPerMinute: rpm, probes }, 0.001, 'falseAlarm'), 2)} | ${percent(rollbackChance({ canary, gate: VERSION_GATE, requestsPerMinute: rpm, probes }, 0.02, 'catching'))} | ${percent(rollbackChance({ canary, gate: VERSION_GATE, requestsPerMinute: rpm, probes }, 0.1, 'catching'))} |`;
  /** A good version's chance (at most) of firing a probed function's gate, at its share of 50 a minute (the authorizer's: the prober's requests alone). */
  const falseAlarmOf = (rpm: number) =>
    rollbackChance({ canary, gate: VERSION_GATE, requestsPerMinute: rpm, probes: PROBES }, 0.001, 'falseAlarm');

  it('the binomial arithmetic is right where it can be worked by hand', () => {
    // 62 invocations (25 % of 50 a minute for 5 minutes, rounded down), 2 % failing: P(X >= 2) = 1 - 0.98^62 - 62 * 0.02 * 0.98^61.
    expect(binomialAtLeast(62, 0.02, 2)).toBeCloseTo(1 - 0.98 ** 62 - 62 * 0.02 * 0.98 ** 61, 12);
    expect(binomialAtLeast(10, 0.5, 0)).toBe(1);
    expect(binomialAtLeast(10, 0.5, 11)).toBe(0);
    expect(binomialAtLeast(10, 0.5, 10)).toBeCloseTo(1 / 1024, 12);
    expect([binomialAtLeast(10, 0, 1), binomialAtLeast(10, 1, 10)]).toEqual([0, 1]);
    expect(binomialAtLeast(3_000, 0.001, 1)).toBeCloseTo(1 - 0.999 ** 3_000, 12); // no underflow for large n
    // Fewer than 10 invocations are not judged; 5 failures at least; over 1 % of 625 is 7.
    expect([
      failuresToFire(VERSION_GATE, 9),
      failuresToFire(VERSION_GATE, 62),
      failuresToFire(VERSION_GATE, 625),
    ]).toEqual([Infinity, 5, 7]);
    // 62.5 invocations: 62 for catching, 63 for a false alarm; the prober's add 4 minutes of its least (60) to the first, 6 of its most (65) to the second.
    expect([
      invocationsPerPeriod({ canary, gate: VERSION_GATE, requestsPerMinute: 50 }),
      invocationsPerPeriod({ canary, gate: VERSION_GATE, requestsPerMinute: 50 }, 'falseAlarm'),
    ]).toEqual([62, 63]);
    expect([
      invocationsPerPeriod({ canary, gate: VERSION_GATE, requestsPerMinute: 50, probes: PROBES }, 'catching'),
      invocationsPerPeriod({ canary, gate: VERSION_GATE, requestsPerMinute: 50, probes: PROBES }, 'falseAlarm'),
    ]).toEqual([302, 453]);
    expect(PROBES).toEqual({ least: 60, most: 65 });
    // A period's chance is the least (catching) or the most (false alarm) over every count between: the failures needed step up at 500 (over 1 %: 6), so 499 fires more often than 500.
    const at = (invocations: number) => binomialAtLeast(invocations, 0.001, failuresToFire(VERSION_GATE, invocations));
    expect(at(499)).toBeGreaterThan(at(500));
    const across = { least: 124, most: 84 };
    expect([
      invocationsPerPeriod({ canary, gate: VERSION_GATE, requestsPerMinute: 0, probes: across }, 'catching'),
      invocationsPerPeriod({ canary, gate: VERSION_GATE, requestsPerMinute: 0, probes: across }, 'falseAlarm'),
    ]).toEqual([496, 504]);
    expect([
      periodChance({ canary, gate: VERSION_GATE, requestsPerMinute: 0, probes: across }, 0.001, 'falseAlarm'),
      periodChance({ canary, gate: VERSION_GATE, requestsPerMinute: 0, probes: across }, 0.001, 'catching'),
    ]).toEqual([at(499), at(500)]);
    // The former 10 % for 10 minutes left the gate no whole period to judge; 25 % for 30 surely 4, and touches at most 7.
    expect([
      judgedPeriods({ percent: 10, minutes: 10 }, VERSION_GATE),
      judgedPeriods(canary, VERSION_GATE),
      judgedPeriods(canary, VERSION_GATE, 'falseAlarm'),
    ]).toEqual([0, 4, 7]);
    // A good authorizer against an old one of the same share: one case by hand. 20 new invocations, all refused (share 1): fires unless the old one's 60 refused more than a third of theirs... all 60 refused too: never.
    expect(refusalFalseAlarmChance(canary, REFUSAL_GATE, 1, 20)).toBe(0);
  });

  it("the docs' table: the chance the gate rolls back a good version (at most) and one failing 2 % or 10 % (at least), by the function's requests a minute, with the prober's and without", () => {
    // A row per operation in the mix, each at its share of 50 a minute; the authorizer's gate counts the prober's requests alone.
    const rows = [
      row("50, and the prober's", 50, PROBES),
      row("500, and the prober's", 500, PROBES),
      ...Object.entries(MIX_AT_50).map(([name, rpm]) =>
        row(`${name}, ${rpm} of 50 a minute to the API, and the prober's`, rpm, PROBES),
      ),
      row("authorizer: the prober's alone", 0, PROBES),
      ...Object.entries(MIX_AT_50).map(([name, rpm]) =>
        row(`${name}, ${rpm} of 50 a minute to the API, without the prober`, rpm, NONE),
      ),
    ];
    for (const line of rows) expect(docs).toContain(line);
    expect(rows.slice(0, 2)).toEqual([
      "| 50, and the prober's | 302 | 0.08 % | 99.4 % | 100.0 % |",
      "| 500, and the prober's | 865 | 0.00 % | 100.0 % | 100.0 % |",
    ]);
    expect(Object.values(MIX_AT_50).reduce((sum, rpm) => sum + rpm, 0)).toBe(50);
  });

  it("meets issue 51's target at 50 requests a minute to the API: a version failing 2 % of any one operation's requests (or of the release key's, for the authorizer) rolled back at least 90 % of the time, a good release (0.1 %) at most 1 %, at any traffic", () => {
    const judged = [...Object.entries(MIX_AT_50), ['authorizer', 0] as const];
    expect(judged.map(([name]) => name).sort()).toEqual([...WALK_FUNCTIONS].sort());
    for (const [name, rpm] of judged)
      expect([
        name,
        rollbackChance({ canary, gate: VERSION_GATE, requestsPerMinute: rpm, probes: PROBES }, 0.02, 'catching') >= 0.9,
      ]).toEqual([name, true]);
    // A good release of all four rolls back when any of their gates fires: the four together, and the authorizer's refusal gate at its worst beside them.
    const anyOfFour = 1 - judged.reduce((none, [, rpm]) => none * (1 - falseAlarmOf(rpm)), 1);
    const refusalGate =
      1 -
      (1 -
        worstRefusalFalseAlarm(canary, REFUSAL_GATE, [0.001, 0.01, 0.05, 0.1, 0.2, 0.4], [10, 100, 300, 1_000, 3_000])
          .chance) **
        judgedPeriods(canary, VERSION_GATE, 'falseAlarm');
    const release = 1 - (1 - anyOfFour) * (1 - refusalGate);
    expect([percent(anyOfFour, 2), percent(release, 2)]).toEqual(['0.18 %', '0.26 %']);
    expect(release <= 0.01).toBe(true);
    expect(docs).toContain(
      `a good release of all four in at most ${percent(anyOfFour, 2)} (${percent(release, 2)} with the authorizer's refusal gate at its worst)`,
    );
    // Without the prober, customers alone: createPet's and getPet's gates catch a 2 % failure almost never.
    expect(
      rollbackChance({ canary, gate: VERSION_GATE, requestsPerMinute: MIX_AT_50.createPet as number }, 0.02) < 0.01,
    ).toBe(true);
    // A good version's worst chance over every traffic from 0 to 3,000 a minute to the function.
    let worst = { chance: 0, rpm: 0 };
    for (let rpm = 0; rpm <= 3_000; rpm += 1) {
      const chance = falseAlarmOf(rpm);
      if (chance > worst.chance) worst = { chance, rpm };
    }
    expect([percent(worst.chance, 2), worst.rpm]).toEqual(['0.12 %', 87]);
    expect(docs).toContain(`at most ${percent(worst.chance, 2)} (at ${worst.rpm} requests a minute to the function)`);
    // Why at least 5 failures, and why 60 judged a minute (the docs' reasons).
    expect(
      [3, 4].map((minFailures) =>
        percent(
          rollbackChance(
            {
              canary,
              gate: { ...VERSION_GATE, minFailures },
              requestsPerMinute: MIX_AT_50.createPet as number,
              probes: PROBES,
            },
            0.001,
            'falseAlarm',
          ),
          2,
        ),
      ),
    ).toEqual(['2.45 %', '0.53 %']);
    expect(
      [40, 50, 55, 60].map((least) =>
        percent(
          rollbackChance(
            { canary, gate: VERSION_GATE, requestsPerMinute: 0, probes: { least, most: PROBES.most } },
            0.02,
            'catching',
          ),
        ),
      ),
    ).toEqual(['62.6 %', '84.4 %', '90.8 %', '94.9 %']);
    expect(docs).toContain('with 3 a good gate fires in up to 2.45 % of releases, with 4 in 0.53 %');
    expect(docs).toContain(
      '62.6 % of the time with 40 judged a minute, 84.4 % with 50, 90.8 % with 55; 60 gives 94.9 %',
    );
  });

  it('the docs state the smallest failure rate surely caught 9 times in 10 at 50 and at 500 requests a minute, with the prober', () => {
    const at50 = smallestCaught({ canary, gate: VERSION_GATE, requestsPerMinute: 50, probes: PROBES }, 0.9);
    const at500 = smallestCaught({ canary, gate: VERSION_GATE, requestsPerMinute: 500, probes: PROBES }, 0.9);
    const alone = smallestCaught({ canary, gate: VERSION_GATE, requestsPerMinute: 0, probes: PROBES }, 0.9);
    expect([at50, at500, alone]).toEqual([0.015, 0.011, 0.019]);
    expect(docs).toContain(`at 50 requests a minute, a version failing ${percent(at50!)} of its requests`);
    expect(docs).toContain(`at 500, one failing ${percent(at500!)}`);
    expect(docs).toContain(`with the prober's requests alone, ${percent(alone!)}`);
  });

  it('the docs state how often a good authorizer fires its gate, at worst over the refused share and the traffic', () => {
    const invocations: number[] = [];
    for (let n = 10; n <= 3_000; n = Math.ceil(n * 1.15)) invocations.push(n);
    const shares = [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.4];
    const worst = worstRefusalFalseAlarm(canary, REFUSAL_GATE, shares, invocations);
    const overCanary = 1 - (1 - worst.chance) ** judgedPeriods(canary, VERSION_GATE, 'falseAlarm');
    expect([percent(worst.chance, 3), percent(overCanary, 2)]).toEqual(['0.012 %', '0.08 %']);
    expect(docs).toContain(`at most ${percent(worst.chance, 3)} of 5-minute periods`);
    expect(docs).toContain(`at most ${percent(overCanary, 2)} over a whole canary`);
    // With 10 refusals, the former number, it was 30 times as likely.
    expect(
      percent(worstRefusalFalseAlarm(canary, { ...REFUSAL_GATE, minRefusals: 10 }, shares, invocations).chance, 2),
    ).toBe('0.35 %');
    expect(docs).toContain('with 10 it would be 0.35 %');
  });
});
