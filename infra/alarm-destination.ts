import type { Node } from 'constructs';
import { ConfigurationError } from './configuration-error';
import { ALARM_DESTINATION_REQUIRED, type Stage } from './stages';

/**
 * Where a stage's alarms go besides its own topic (AlarmTopicArn): an e-mail address subscribed to
 * it, an existing SNS topic notified too, or both. Given on the command line (`-c alarmEmail=`,
 * `-c alarmTopicArn=`) or, so that no deploy forgets it, for the stage in cdk.json's context:
 * `"alarmDestinations": { "prod": { "email": "ops@example.com" } }` (the command line wins). A stage
 * that must have one (ALARM_DESTINATION_REQUIRED: prod) fails to synthesize without it, in one line (a ConfigurationError);
 * a deploy can then never drop a subscription by forgetting a flag.
 */
export interface AlarmDestination {
  readonly email?: string;
  readonly topicArn?: string;
}

const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;
const TOPIC_ARN = /^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,256}$/;

export function alarmDestinationOf(node: Node, stage: Stage): AlarmDestination {
  const configured =
    (node.tryGetContext('alarmDestinations') as Record<string, { email?: unknown; topicArn?: unknown }> | undefined)?.[
      stage
    ] ?? {};
  const email = given(node.tryGetContext('alarmEmail')) ?? given(configured.email);
  const topicArn = given(node.tryGetContext('alarmTopicArn')) ?? given(configured.topicArn);
  if (email !== undefined && (typeof email !== 'string' || !EMAIL.test(email)))
    throw new ConfigurationError(
      `alarmEmail must be one e-mail address, like ops@example.com; got ${JSON.stringify(email)}`,
    );
  if (topicArn !== undefined && (typeof topicArn !== 'string' || !TOPIC_ARN.test(topicArn)))
    throw new ConfigurationError(
      `alarmTopicArn must be an SNS topic's ARN, like arn:aws:sns:eu-west-1:123456789012:ops; got ${JSON.stringify(topicArn)}`,
    );
  if (email === undefined && topicArn === undefined && ALARM_DESTINATION_REQUIRED[stage]) {
    throw new ConfigurationError(
      `PetStore-${stage} needs an alarm destination: -c alarmEmail=ops@example.com, -c alarmTopicArn=arn:aws:sns:<region>:<account>:<topic>, or "alarmDestinations": { "${stage}": { "email": "ops@example.com" } } in cdk.json's context (docs/first-deploy.md)`,
    );
  }
  return {
    ...(email === undefined ? {} : { email: email as string }),
    ...(topicArn === undefined ? {} : { topicArn: topicArn as string }),
  };
}

/** A context value given: not absent, not empty. */
const given = (value: unknown): unknown => (value === undefined || value === '' ? undefined : value);
