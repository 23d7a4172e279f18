import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { buildApp } from '../../infra/app';
// Prod gets the placeholder alarm destination unless a test gives its own (or `alarmEmail: ''`, none).
import { CDK_JSON_CONTEXT, PLACEHOLDER_DESTINATION } from '../../infra/lint-templates';

const outdirs: string[] = [];

/**
 * The app as `cdk synth -c stage=...` builds it (with cdk.json's context), in a temporary cloud assembly directory.
 * Template tests skip bundling (seconds instead of half a minute); pass `bundle` where the
 * bundles themselves are under test.
 */
export function synth(
  stage: 'staging' | 'prod',
  bundle = false,
  context: Record<string, unknown> = {},
): { app: App; template: Template } {
  const app = new App({
    outdir: newOutdir(),
    context: {
      ...CDK_JSON_CONTEXT,
      stage,
      ...(stage === 'prod' ? PLACEHOLDER_DESTINATION : {}),
      ...context,
      ...(bundle ? {} : { 'aws:cdk:bundling-stacks': [] }),
    },
  });
  const { stack } = buildApp(app);
  return { app, template: Template.fromStack(stack) };
}

/** The app as `cdk synth -c setup=account` builds it: the account's API Gateway logging role. */
export function synthAccountSetup(): { app: App; template: Template } {
  const app = new App({ outdir: newOutdir(), context: { ...CDK_JSON_CONTEXT, setup: 'account' } });
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

/**
 * The logical id of the one resource of `type` whose construct id is `prefix` (CDK adds a hash of
 * 8 hex digits, and a child's id after it: `Api` is not `ApiDeployment…`); throws unless exactly one.
 */
export function idWithPrefix(template: Template, type: string, prefix: string): string {
  const ids = Object.keys(template.findResources(type)).filter(
    (id) => id.startsWith(prefix) && !/^[A-Z][a-z]/.test(id.slice(prefix.length)),
  );
  if (ids.length !== 1) throw new Error(`${ids.length} ${type} named ${prefix}…: ${ids.join(', ')}`);
  return ids[0] as string;
}

/** A release gate's logical id (infra/releases.ts): failures, latency, refusals, the release prober's requests. The gates notify no one. */
export const RELEASE_GATE_ID = /Release(Latency|Refusal|Probe)?Alarm[0-9A-F]{8}$/;
