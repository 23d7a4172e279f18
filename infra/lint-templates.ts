import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { buildApp } from './app';
import { STAGES } from './stages';

/**
 * `npm run lint:templates`: synthesizes every stage's template as `cdk synth` does (without
 * bundling: the functions' code is not what cfn-lint reads) and runs cfn-lint on them. Any error or
 * warning fails; the one warning CDK itself makes is ignored in .cfnlintrc, with its reason. CI runs
 * it after `npm test` (.ci/run). cfn-lint is Python's: `pip install cfn-lint` where it is missing.
 */
const root = join(import.meta.dirname, '..');
/** cdk.json's context (the feature flags among it), as `cdk synth` passes it to the app; the template tests synthesize with it too. */
export const CDK_JSON_CONTEXT =
  (JSON.parse(readFileSync(join(root, 'cdk.json'), 'utf8')) as { context?: Record<string, unknown> }).context ?? {};

/** Prod needs an alarm destination (infra/alarm-destination.ts): what a synth for checking gives it (the template's shape is what is checked). */
export const PLACEHOLDER_DESTINATION = { alarmEmail: 'alarms@example.com' };

/** Where each stage's template is written. */
export function synthesizeStages(outdir: string, extra: Record<string, unknown> = {}): string[] {
  return STAGES.map((stage) => {
    const app = new App({
      outdir: join(outdir, stage),
      context: { ...CDK_JSON_CONTEXT, stage, 'aws:cdk:bundling-stacks': [], ...extra },
    });
    const { stack } = buildApp(app);
    app.synth();
    return join(outdir, stage, stack.templateFile);
  });
}

if (process.argv[1] === import.meta.filename) {
  const outdir = mkdtempSync(join(tmpdir(), 'petstore-lint-'));
  try {
    const templates = synthesizeStages(outdir, PLACEHOLDER_DESTINATION);
    const lint = spawnSync('cfn-lint', ['--format', 'parseable', ...templates], { cwd: root, encoding: 'utf8' });
    if (lint.error !== undefined) {
      process.stderr.write(`cfn-lint could not run (${lint.error.message}): install it with pip install cfn-lint\n`);
      process.exitCode = 2;
    } else {
      process.stdout.write(lint.stdout);
      process.stderr.write(lint.stderr);
      process.stdout.write(
        lint.status === 0
          ? `cfn-lint: no error or warning in ${templates.length} templates (${STAGES.join(', ')})\n`
          : '',
      );
      process.exitCode = lint.status ?? 1;
    }
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}
