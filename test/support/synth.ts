import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { buildApp } from '../../infra/app';

/** cdk.json's context (the feature flags among it), as `cdk synth` passes it to the app. */
const CDK_CONTEXT = (JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8')) as { context?: Record<string, unknown> }).context ?? {};

const outdirs: string[] = [];

/** Prod needs an alarm destination (infra/alarm-destination.ts): the tests give it this one unless a test gives its own (or `alarmEmail: ''`, none). */
export const PLACEHOLDER_DESTINATION = { alarmEmail: 'alarms@example.com' };

/**
 * The app as `cdk synth -c stage=...` builds it (with cdk.json's context), in a temporary cloud assembly directory.
 * Template tests skip bundling (seconds instead of half a minute); pass `bundle` where the
 * bundles themselves are under test.
 */
export function synth(stage: 'staging' | 'prod', bundle = false, context: Record<string, unknown> = {}): { app: App; template: Template } {
  const app = new App({ outdir: newOutdir(), context: { ...CDK_CONTEXT, stage, ...(stage === 'prod' ? PLACEHOLDER_DESTINATION : {}), ...context, ...(bundle ? {} : { 'aws:cdk:bundling-stacks': [] }) } });
  const { stack } = buildApp(app);
  return { app, template: Template.fromStack(stack) };
}

/** The app as `cdk synth -c setup=account` builds it: the account's API Gateway logging role. */
export function synthAccountSetup(): { app: App; template: Template } {
  const app = new App({ outdir: newOutdir(), context: { ...CDK_CONTEXT, setup: 'account' } });
  const { stack } = buildApp(app);
  return { app, template: Template.fromStack(stack) };
}

export function newOutdir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'petstore-cdk-'));
  outdirs.push(dir);
  return dir;
}

/** Call from afterAll: removes every assembly directory this file created. */
export function removeOutdirs(): void {
  for (const dir of outdirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}
