import { suiteConfig } from './vitest.config';

/**
 * `npm run test:operation`: every test a new or changed operation can break, in about two minutes
 * on two idle cores (docs/adding-an-operation.md, its last step). The files that read the table of
 * functions, the bench's cases, the pets' repository or service, or loads the handlers (its handler,
 * declaration and generated files, its rights, the interface description, the release check's
 * probes, the stack, bundles, bench cases and cost, the pets' reads and writes), and every unit test. Not here: the limiter's, the
 * local server's and npm start's own tests, the command lines around the release drill and the
 * CDK app, the floods and the fuzzers, which no operation's change reaches (`npm test` runs them;
 * test/architecture/operation-suite.test.ts holds that every test file reading the table of functions is
 * here, or named in NOT_AN_OPERATION_CHANGE with why). In the suite's projects (vitest.config.ts).
 */
export const OPERATION_TESTS = [
  'test/unit/**/*.test.ts',
  'test/architecture/**/*.test.ts',
  'test/types/**/*.test.ts',
  'test/codegen/**/*.test.ts',
  'test/openapi/**/*.test.ts',
  'test/docs/**/*.test.ts',
  'test/bench/**/*.test.ts',
  'test/client/client.test.ts',
  'test/infra/stack.test.ts',
  'test/infra/releases.test.ts',
  'test/infra/function-bundles.test.ts',
  'test/infra/first-deploy.test.ts',
  'test/http/create-and-get-pet.test.ts',
  'test/http/list-pets.test.ts',
  'test/http/request-validation.test.ts',
  'test/http/sunset.test.ts',
  'test/http/declared-rights.test.ts',
  'test/http/least-privilege.test.ts',
  'test/http/cursor-secret-rotation.test.ts',
  'test/http/management-calls.test.ts',
  'test/http/reference-page.test.ts',
  'test/http/errors-and-abuse.test.ts',
  // Reaches the schemas through the served document only (test/support/interface-judge.ts).
  'test/http/interface-agreement.test.ts',
  'test/integration/fault-suite.test.ts',
  'test/integration/pet-repository.test.ts',
  'test/integration/time-ordered-ids.test.ts',
  'test/integration/walk-under-replica-lag.test.ts',
  'test/integration/lifted-ceilings.test.ts',
  'test/integration/data-directory-upgrade.test.ts',
  'test/http/idempotent-creates.test.ts',
  'test/client/idempotent-create.test.ts',
  'test/integration/round-trips.test.ts',
  'test/integration/pet-writes-paths.test.ts',
  'test/integration/pet-reads-paths.test.ts',
  'test/integration/key-mirror.test.ts',
  'test/local/request-log.test.ts',
  'test/local/release-drill.test.ts',
];

/** Files that read the table of functions or synthesize the stack, but that a new or changed operation cannot break: why. */
export const NOT_AN_OPERATION_CHANGE: Readonly<Record<string, string>> = {
  'test/http/rate-limits.test.ts': "the limiter's answers, sent through getPet's declared request only as a sample",
  'test/integration/key-registry.test.ts':
    'the key registry beside pets in one table: a scan of keys must not read the pets it made',
  'test/local/release-drill-command.test.ts':
    "the drill's command line: what it prints, its exit codes, the processes it stops (two drills, each with a DynamoDB Local of its own); each probe against the bundles is release-drill.test.ts's",
  'test/integration/walk-across-clocks.test.ts':
    "the listing's promises across clocks and late writes, in virtual time through the listing code: no operation's declaration reaches it",
  'test/infra/stage-settings.test.ts':
    "a stage's settings: where its alarms go, and the CDK CLI's one line on a missing or wrong one",
};

export default suiteConfig(OPERATION_TESTS);
