import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import { afterAll, describe, expect, it } from 'vitest';
import { buildApp, runApp } from '../../infra/app';
import { ConfigurationError } from '../../infra/configuration-error';
import { CDK_JSON_CONTEXT } from '../../infra/lint-templates';
import { ALARM_DESTINATION_REQUIRED } from '../../infra/stages';
import { idWithPrefix, newOutdir, RELEASE_GATE_ID as RELEASE_GATE, removeOutdirs, synth } from '../support/synth';

/**
 * The settings a stage is deployed with, on the command line or in cdk.json: where its alarms go,
 * and how a missing or wrong one is reported (issues 22 and 51). No operation's change reaches
 * them, so `npm run test:operation` leaves this file to `npm test` (vitest.operation.config.ts).
 */
afterAll(removeOutdirs);

/** The release gates' logical ids (infra/releases.ts), which notify no one. */

describe.each(['staging', 'prod'] as const)("the %s stack's alarm destination", (stage) => {
  it('sends the alarms to a destination given on the command line or in cdk.json for the stage; prod refuses to synthesize without one, staging says so', () => {
    const none = { alarmEmail: '' };
    const noteOf = (context: Record<string, unknown>) =>
      Annotations.fromStack(synth(stage, false, context).app.node.findChild(`PetStore-${stage}`) as never).findInfo(
        '*',
        Match.stringLikeRegexp('No alarm destination for this stage'),
      );
    if (ALARM_DESTINATION_REQUIRED[stage]) {
      expect(() => synth(stage, false, none)).toThrow(
        `PetStore-${stage} needs an alarm destination: -c alarmEmail=ops@example.com, -c alarmTopicArn=arn:aws:sns:<region>:<account>:<topic>, or "alarmDestinations": { "${stage}": { "email": "ops@example.com" } } in cdk.json's context (docs/first-deploy.md)`,
      );
    } else {
      synth(stage, false, none).template.resourceCountIs('AWS::SNS::Subscription', 0);
      expect(noteOf(none)).toHaveLength(1);
    }
    expect(noteOf({ alarmEmail: 'ops@example.com' })).toHaveLength(0);
    // An address on the command line, or the stage's in cdk.json (the command line wins): subscribed.
    for (const [context, address] of [
      [{ alarmEmail: 'ops@example.com' }, 'ops@example.com'],
      [{ ...none, alarmDestinations: { [stage]: { email: 'team@example.com' } } }, 'team@example.com'],
      [
        { alarmEmail: 'ops@example.com', alarmDestinations: { [stage]: { email: 'team@example.com' } } },
        'ops@example.com',
      ],
    ] as const) {
      const subscribed = synth(stage, false, context).template;
      subscribed.resourceCountIs('AWS::SNS::Subscription', 1);
      subscribed.hasResourceProperties('AWS::SNS::Subscription', {
        Protocol: 'email',
        Endpoint: address,
        TopicArn: { Ref: idWithPrefix(subscribed, 'AWS::SNS::Topic', 'AlarmTopic') },
      });
    }
    // An existing topic: every alarm notifies it too, beside the stage's own.
    const topicArn = 'arn:aws:sns:eu-west-1:123456789012:ops';
    const notified = synth(stage, false, { ...none, alarmTopicArn: topicArn }).template;
    notified.resourceCountIs('AWS::SNS::Subscription', 0);
    // (The release gates notify no one: test/infra/releases.test.ts.)
    const alarms = Object.entries(
      notified.findResources('AWS::CloudWatch::Alarm') as Record<string, { Properties: { AlarmActions: unknown[] } }>,
    ).filter(([id]) => !RELEASE_GATE.test(id));
    expect(alarms.length).toBeGreaterThan(10);
    for (const [, alarm] of alarms)
      expect(alarm.Properties.AlarmActions).toEqual([
        { Ref: idWithPrefix(notified, 'AWS::SNS::Topic', 'AlarmTopic') },
        topicArn,
      ]);
    for (const wrong of ['ops', 'ops@example', 'a@b.c d@e.f', 'ops@@example.com'])
      expect(() => synth(stage, false, { alarmEmail: wrong })).toThrow(/alarmEmail must be one e-mail address/);
    for (const wrong of ['ops', 'arn:aws:sqs:eu-west-1:123456789012:ops', 'arn:aws:sns:eu-west-1:1234:ops'])
      expect(() => synth(stage, false, { alarmTopicArn: wrong })).toThrow(/alarmTopicArn must be an SNS topic's ARN/);
  });
});

describe('the CDK CLI on a missing or wrong setting (issue 51, finding 7)', () => {
  const root = resolve(__dirname, '../..');
  /** The pinned CLI as docs/deploying-and-operating.md runs it, with cdk.json's app; no AWS account is reached (it stops before any synthesis), and no notices are fetched (they would print on stderr). */
  const cdk = (...args: string[]) =>
    spawnSync(join(root, 'node_modules', '.bin', 'cdk'), [...args, '--no-notices'], {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, CDK_DISABLE_VERSION_CHECK: 'true', CDK_DISABLE_CLI_TELEMETRY: 'true' },
      timeout: 120_000,
    });

  it('says what is missing in one line and exits 1, without a stack trace: prod without an alarm destination', () => {
    const run = cdk('synth', '-c', 'stage=prod');
    expect(run.status).toBe(1);
    // The app's own output is the one line; the CLI adds its own naming the app that failed.
    expect(run.stderr.trim().split('\n')).toEqual([
      'PetStore-prod needs an alarm destination: -c alarmEmail=ops@example.com, -c alarmTopicArn=arn:aws:sns:<region>:<account>:<topic>, or "alarmDestinations": { "prod": { "email": "ops@example.com" } } in cdk.json\'s context (docs/first-deploy.md)',
      'npx tsx infra/app.ts: Subprocess exited with error 1',
    ]);
  });

  it('an unknown stage or setup, a wrong address or topic is a ConfigurationError too (the one line above), anything else keeps its trace', () => {
    for (const [context, message] of [
      [{ stage: 'qa' }, 'Unknown stage "qa": use -c stage=staging or -c stage=prod'],
      [{ setup: 'everything' }, 'Unknown setup "everything": use -c setup=account'],
      [{ stage: 'prod', alarmEmail: 'ops' }, 'alarmEmail must be one e-mail address, like ops@example.com; got "ops"'],
      [
        { stage: 'prod', alarmTopicArn: 'ops' },
        'alarmTopicArn must be an SNS topic\'s ARN, like arn:aws:sns:eu-west-1:123456789012:ops; got "ops"',
      ],
      // A yes-or-no setting read as no unless it says true was a prod release that watched its alarms by accident of spelling.
      [
        { stage: 'prod', alarmEmail: 'ops@example.com', ignoreReleaseAlarms: 'yes' },
        'ignoreReleaseAlarms must be true or false; got "yes"',
      ],
    ] as const) {
      const built = () =>
        buildApp(
          new App({ outdir: newOutdir(), context: { ...CDK_JSON_CONTEXT, ...context, 'aws:cdk:bundling-stacks': [] } }),
        );
      expect(built).toThrow(new ConfigurationError(message));
      expect(built).toThrow(ConfigurationError);
    }
    const bug = new Error('a bug');
    expect(() =>
      runApp(() => {
        throw bug;
      }),
    ).toThrow(bug);
  });

  it('the offline synth command of docs/deploying-and-operating.md synthesizes prod as written (its alarm destination given)', () => {
    const page = readFileSync(join(root, 'docs', 'deploying-and-operating.md'), 'utf8');
    const command = /^npx cdk synth (.*?)\s+#/m.exec(page)?.[1];
    expect(command).toBeDefined();
    const context = Object.fromEntries(
      [...(command as string).matchAll(/-c (\w+)=(\S+)/g)].map((match) => [match[1], match[2]]),
    );
    expect(context.stage).toBe('prod');
    // As given, with none of the test's placeholder destination.
    expect(() => synth('prod', false, { alarmEmail: '', ...context })).not.toThrow();
  });
});
