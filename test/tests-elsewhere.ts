import { OPERATION_IDS } from '../functions/table';

/**
 * The modules of shared/ and functions/ that have no unit test of their own (no
 * test/unit/<module path>.test.ts): for each, the tests that cover it and why it needs none of its
 * own. Every other module has its mirror (docs/testing.md#where-tests-sit);
 * test/architecture/test-placement.test.ts holds both, and that every entry here names a module
 * without a mirror, says why, and names tests that exist and import it (directly or through the
 * project's modules) or, as its reachedAtRunTime says how, reach it at run time. Give a module a
 * unit test at its mirror and remove its entry here.
 */
export interface TestedElsewhere {
  /** The test files that cover it, from the project's root. */
  readonly tests: readonly string[];
  /** Why it has no unit test of its own, in a few words. */
  readonly why: string;
  /**
   * The named tests that reach the module only at run time, where no import names it: test → how.
   * Every other named test imports it, directly or through the project's own modules (the walk of
   * test/architecture/test-placement.test.ts, which follows relative imports, re-exports, `import()`
   * of a literal and `import.meta.glob`).
   */
  readonly reachedAtRunTime?: Readonly<Record<string, string>>;
}

const GENERATED = 'test/codegen/generated-files.test.ts';
const GENERATED_WHY = "generated: test/codegen/generated-files.test.ts holds it equal to its generator's output";
const DECLARATION_WHY =
  "an operation's declaration (data): test/unit/functions/table.test.ts holds it complete and consistent, and every bench case of it is sent through the local server";
const SCHEMA_WHY =
  'zod schemas (data): the generated request checks are held to their answers value by value, and the HTTP tests send them';
const SCHEMA_TESTS = ['test/codegen/operation-request-checks.test.ts', 'test/http/request-validation.test.ts'];
const BASELINE_WHY =
  "the bench's framework-free twin: test/bench/baseline-parity.test.ts holds that it answers every case as ours does";
const WIRING_WHY = 'wiring only (creates its clients or stores once per container): exercised end to end by';
/** How the tests that start the local server (test/support/api.ts) reach the functions' handlers. */
const THROUGH_LOCAL_SERVER =
  'through the local server, which imports each handler by its path in functions/table.ts (local/server.ts)';
const BY_BENCH_PATH =
  "imports each bench function's handler and its baseline twin by their paths (bench/cases.ts's entryOf)";
const BASELINE_PARITY = 'test/bench/baseline-parity.test.ts';
/** A generated file: generated-files.test.ts reads it as text. */
const GENERATED_AS_TEXT = { [GENERATED]: "reads it as text, to compare it with its generator's output" };

/**
 * Each declared operation's own files (functions/<operationId>/), covered alike by the tests that
 * run every declared operation: a new operation needs no line here (docs/adding-an-operation.md).
 */
const PER_OPERATION: Readonly<Record<string, TestedElsewhere>> = {
  'baseline.ts': {
    tests: [BASELINE_PARITY],
    why: BASELINE_WHY,
    reachedAtRunTime: { [BASELINE_PARITY]: BY_BENCH_PATH },
  },
  'handler.ts': {
    tests: ['test/http/declared-rights.test.ts', BASELINE_PARITY],
    why: "the stack around the pet service: every bench case of every declared operation is sent through the local server and answers as declared (and the operation's own HTTP tests)",
    reachedAtRunTime: { 'test/http/declared-rights.test.ts': THROUGH_LOCAL_SERVER, [BASELINE_PARITY]: BY_BENCH_PATH },
  },
  'operation.ts': {
    tests: ['test/unit/functions/table.test.ts', 'test/http/declared-rights.test.ts'],
    why: DECLARATION_WHY,
  },
  'request-checks.generated.ts': {
    tests: [GENERATED, 'test/codegen/operation-request-checks.test.ts'],
    why: `${GENERATED_WHY}; operation-request-checks.test.ts holds its answers to zod's`,
    reachedAtRunTime: GENERATED_AS_TEXT,
  },
};

const OPERATION_FILES: Readonly<Record<string, TestedElsewhere>> = Object.fromEntries(
  OPERATION_IDS.flatMap((operationId) =>
    Object.entries(PER_OPERATION).map(([file, entry]) => [`functions/${operationId}/${file}`, entry]),
  ),
);

export const TESTS_ELSEWHERE: Readonly<Record<string, TestedElsewhere>> = {
  'functions/apiDocs/handler.ts': {
    tests: ['test/http/reference-page.test.ts', 'test/http/declared-rights.test.ts'],
    why: 'a handler served by the local server: the reference page test and every documentation route go through it',
    reachedAtRunTime: {
      'test/http/reference-page.test.ts': THROUGH_LOCAL_SERVER,
      'test/http/declared-rights.test.ts': THROUGH_LOCAL_SERVER,
    },
  },
  'functions/authorizer/baseline.ts': {
    tests: [BASELINE_PARITY],
    why: BASELINE_WHY,
    reachedAtRunTime: { [BASELINE_PARITY]: BY_BENCH_PATH },
  },
  'functions/authorizer/handler.ts': {
    tests: ['test/integration/authorizer-handler.test.ts', 'test/integration/authorizer.test.ts'],
    why: 'its handler test runs it against DynamoDB Local (the key registry and counters are in the table)',
  },
  'functions/keyMirror/handler.ts': {
    tests: ['test/integration/key-mirror-handler.test.ts'],
    why: 'its handler test runs it against DynamoDB Local (the key registry is in the table) and the fake management API',
  },
  ...OPERATION_FILES,
  'functions/operation-declaration.ts': {
    tests: ['test/unit/functions/table.test.ts', 'test/types/operation-declarations.test.ts'],
    why: "the declaration's type and its one helper: the type-check and the table's test hold every declaration, the type tests what it refuses",
  },
  'functions/operations.generated.ts': { tests: [GENERATED, 'test/unit/functions/table.test.ts'], why: GENERATED_WHY },
  'functions/releaseCheck/probes.generated.ts': {
    tests: [GENERATED, 'test/unit/functions/releaseCheck/handler.test.ts'],
    why: GENERATED_WHY,
    reachedAtRunTime: GENERATED_AS_TEXT,
  },
  'shared/auth/api-gateway-keys.ts': {
    tests: ['test/integration/key-mirror.test.ts', 'test/integration/key-mirror-handler.test.ts'],
    why: "API Gateway's management API, for which no emulator exists: run against test/support/fake-management-api.ts by the key mirror's test, and by its handler's with the client the handler makes (its endpoint from AWS_ENDPOINT_URL_API_GATEWAY)",
  },
  'shared/auth/key-mirror-run-log.ts': {
    tests: ['test/unit/shared/embedded-metrics.test.ts', 'test/integration/key-mirror-handler.test.ts'],
    why: 'one metric line: tested with the one writer of metric lines (embedded-metrics.test.ts, "a key mirror run\'s line"), and as the handler writes it',
  },
  'shared/auth/key-mirror.ts': {
    tests: ['test/integration/key-mirror.test.ts'],
    why: 'writes the key registry: tested against DynamoDB Local and the fake management API',
  },
  'shared/auth/key-registry.ts': {
    tests: ['test/integration/key-registry.test.ts', 'test/integration/key-registry-branches.test.ts'],
    why: 'items in the table: tested against DynamoDB Local',
  },
  'shared/auth/principal.ts': {
    tests: ['test/unit/shared/http/middleware/authenticate.test.ts'],
    why: 'a type and one constant: the caller as authenticate reads it',
  },
  'shared/auth/refusal-metrics.ts': {
    tests: ['test/http/request-metrics.test.ts', 'test/integration/authorizer-handler.test.ts'],
    why: "the authorizer's refusal line: read from its log by the request-metrics test",
  },
  'shared/dynamodb/aws-endpoint.ts': {
    tests: ['test/unit/local/dynamodb-target.test.ts'],
    why: 'one predicate, tested where the DynamoDB target is chosen by it',
  },
  'shared/dynamodb/client.ts': {
    tests: ['test/unit/shared/dynamodb/call-deadline.test.ts', 'test/integration/dynamodb-socket-queue.test.ts'],
    why: "the SDK client's settings: its bounds with the call deadline's test, its local socket queue against DynamoDB Local",
  },
  'shared/dynamodb/document-client.ts': {
    tests: ['test/integration/authorizer-handler.test.ts', 'test/http/least-privilege.test.ts'],
    why: `${WIRING_WHY} the authorizer's tests`,
  },
  'shared/dynamodb/table-definition.ts': {
    tests: ['test/infra/table.test.ts', 'test/unit/functions/table.test.ts', 'test/integration/pet-repository.test.ts'],
    why: "the table's description (data): the stack's table and every DynamoDB Local test are made from it",
  },
  'shared/function-declaration.ts': {
    tests: [
      'test/unit/functions/table.test.ts',
      'test/codegen/generator-parts.test.ts',
      'test/types/operation-declarations.test.ts',
    ],
    why: "a declaration's types and their helpers: the table's test holds every declaration made with them, the type tests what they refuse",
  },
  'shared/http/base-path.ts': {
    tests: ['test/http/create-and-get-pet.test.ts'],
    why: 'one constant: every HTTP test requests below it',
  },
  'shared/http/body-limit.ts': {
    tests: ['test/unit/shared/http/middleware/validate-request.test.ts', 'test/http/errors-and-abuse.test.ts'],
    why: "the limit's constants: the body's reading and the local web ACL's refusal test them at the limit",
  },
  'shared/http/documentation-routes.ts': {
    tests: ['test/http/declared-rights.test.ts', 'test/http/reference-page.test.ts'],
    why: "the apiDocs function's routes (data): every one is requested through the local server",
  },
  'shared/http/error-body.ts': {
    tests: ['test/unit/shared/http/middleware/error-response.test.ts', 'test/http/errors-and-abuse.test.ts'],
    why: 'the Error body\'s schema: error-response.test.ts ("the Error body") and every HTTP answer checked against the interface description',
  },
  'shared/http/every-answer.ts': {
    tests: ['test/unit/shared/http/gateway-responses.test.ts', 'test/infra/stack.test.ts'],
    why: 'one constant of headers: the gateway responses and the stack are held to it',
  },
  'shared/http/middleware/access-log.ts': {
    tests: ['test/http/request-metrics.test.ts', 'test/http/local-logs.test.ts', 'test/local/request-log.test.ts'],
    why: "writes the request line: read from the functions' logs by the HTTP tests",
  },
  'shared/http/middleware/response-headers.ts': {
    tests: ['test/http/create-and-get-pet.test.ts', 'test/http/rate-limits.test.ts', 'test/openapi/no-content.test.ts'],
    why: 'sets the headers every answer of an operation carries: checked on answers through the stack and the local server',
  },
  'shared/http/middleware/sunset.ts': {
    tests: ['test/http/sunset.test.ts'],
    why: "getPet's sunset, on the service's clock: tested end to end, with the clock moved",
  },
  'shared/http/operation-routes.generated.ts': {
    tests: [GENERATED, 'test/http/request-metrics.test.ts'],
    why: GENERATED_WHY,
    reachedAtRunTime: GENERATED_AS_TEXT,
  },
  'shared/http/request-context.ts': {
    tests: [
      'test/unit/shared/http/middleware/authenticate.test.ts',
      'test/unit/shared/http/middleware/validate-request.test.ts',
    ],
    why: "types only: the middlewares' tests build it",
  },
  'shared/http/request-metrics.ts': {
    tests: ['test/unit/shared/embedded-metrics.test.ts', 'test/http/request-metrics.test.ts'],
    why: 'the request line\'s metrics: tested with the one writer of metric lines ("metricMembers"), and end to end',
  },
  'shared/http/result.ts': {
    tests: ['test/unit/shared/http/stack.test.ts', 'test/openapi/no-content.test.ts'],
    why: "an operation's answers, as the stack sends them: tested through the stack",
  },
  'shared/http/route.ts': {
    tests: ['test/unit/functions/table.test.ts'],
    why: 'types only: the declarations name it',
  },
  'shared/http/routes.ts': {
    tests: ['test/unit/functions/table.test.ts', 'test/http/declared-rights.test.ts'],
    why: "the routes' names (data): the table's test holds them to the declarations",
  },
  'shared/limits/counter-store.ts': {
    tests: [
      'test/integration/rate-limiter.test.ts',
      'test/integration/sharded-counters.test.ts',
      'test/integration/fleet-suspension.test.ts',
    ],
    why: 'conditional writes to the table: tested against DynamoDB Local',
  },
  'shared/limits/edge-limits.ts': {
    tests: ['test/http/rate-limits.test.ts', 'test/infra/stack.test.ts'],
    why: "the edge's limits (data): the local web ACL's refusals and the stack's WAF rules are tested by them",
  },
  'shared/limits/limiter-instance.ts': {
    tests: ['test/http/rate-limits.test.ts', 'test/bench/baseline-parity.test.ts'],
    why: `${WIRING_WHY} the HTTP tests`,
  },
  'shared/limits/shard-memory.ts': {
    tests: ['test/unit/shared/limits/counter-shards.test.ts', 'test/integration/sharded-counters.test.ts'],
    why: "what a container remembers of the counter shards: tested with the shards' choice",
  },
  'shared/limits/suspension.ts': {
    tests: ['test/integration/suspension-shedding.test.ts', 'test/integration/rate-limiter.test.ts'],
    why: 'kept in the counters: tested against DynamoDB Local',
  },
  'shared/limits/windows.ts': {
    tests: ['test/unit/shared/limits/counter-shards.test.ts', 'test/integration/rate-limiter.test.ts'],
    why: "the minute and the day: tested with the counters' shards and the limiter",
  },
  'shared/live-alias.ts': {
    tests: ['test/infra/first-deploy.test.ts', 'test/infra/releases.test.ts'],
    why: "one constant: the stack's aliases are tested by name",
  },
  'shared/log.ts': {
    tests: ['test/http/local-logs.test.ts', 'test/http/request-metrics.test.ts', 'test/local/request-log.test.ts'],
    why: 'the one log writer: read back by every test that checks a log line',
  },
  'shared/pets/cursor-store.ts': {
    tests: ['test/http/list-pets.test.ts', 'test/integration/cursor-secret-faults.test.ts'],
    why: `${WIRING_WHY} listPets' tests, its keys from the environment and from Secrets Manager`,
  },
  'shared/pets/fields.ts': {
    tests: SCHEMA_TESTS,
    why: "the schemas' limits and messages (plain values): tested through the schemas",
  },
  'shared/pets/idempotency-key-header.ts': {
    tests: ['test/http/idempotent-creates.test.ts', 'test/codegen/operation-request-checks.test.ts'],
    why: 'a zod schema (data): its checks are held to it, and the idempotent-create tests send it ("the key\'s form")',
  },
  'shared/pets/idempotency.ts': {
    tests: ['test/http/idempotent-creates.test.ts', 'test/integration/pet-repository.test.ts'],
    why: 'rules kept with the write in the table: tested against DynamoDB Local, end to end',
  },
  'shared/pets/identifier.ts': { tests: SCHEMA_TESTS, why: SCHEMA_WHY },
  'shared/pets/list-pets-query.ts': { tests: [...SCHEMA_TESTS, 'test/http/list-pets.test.ts'], why: SCHEMA_WHY },
  'shared/pets/new-pet.ts': { tests: SCHEMA_TESTS, why: SCHEMA_WHY },
  'shared/pets/no-query.ts': { tests: SCHEMA_TESTS, why: SCHEMA_WHY },
  'shared/pets/pet-id-path.ts': { tests: SCHEMA_TESTS, why: SCHEMA_WHY },
  'shared/pets/pet-name-rules.ts': {
    tests: [...SCHEMA_TESTS, 'test/unit/shared/pets/name-pattern.test.ts', 'test/unit/shared/pets/schema.test.ts'],
    why: "the name's checks, run by its schema and by the generated checks: tested through both",
  },
  'shared/pets/pet-reads-store.ts': {
    tests: ['test/http/list-pets.test.ts', 'test/http/create-and-get-pet.test.ts'],
    why: `${WIRING_WHY} the HTTP tests`,
    reachedAtRunTime: { 'test/http/create-and-get-pet.test.ts': THROUGH_LOCAL_SERVER },
  },
  'shared/pets/pet-reads.ts': {
    tests: ['test/integration/pet-reads-paths.test.ts', 'test/integration/pet-repository.test.ts'],
    why: 'queries of the table: tested against DynamoDB Local',
  },
  'shared/pets/pet-space.ts': {
    tests: ['test/unit/shared/pets/pet-items.test.ts', 'test/integration/pet-repository.test.ts'],
    why: "whose pets a request reads: tested with the items' keys it chooses",
  },
  'shared/pets/pet-status.ts': { tests: SCHEMA_TESTS, why: SCHEMA_WHY },
  'shared/pets/pet-writes-store.ts': {
    tests: ['test/http/create-and-get-pet.test.ts', 'test/integration/fault-suite.test.ts'],
    why: `${WIRING_WHY} the HTTP tests, and by createPet's handler with faults from the proxy`,
    reachedAtRunTime: { 'test/http/create-and-get-pet.test.ts': THROUGH_LOCAL_SERVER },
  },
  'shared/pets/pet-writes.ts': {
    tests: ['test/integration/pet-writes-paths.test.ts', 'test/integration/pet-repository.test.ts'],
    why: 'writes to the table: tested against DynamoDB Local, with faults from the proxy',
  },
  'shared/pets/pet.ts': {
    tests: ['test/http/create-and-get-pet.test.ts', 'test/unit/shared/release-check/run-release-check.test.ts'],
    why: 'a zod schema no function builds: the interface description is made of it, and every HTTP answer is checked against that',
  },
  'shared/pets/repository.ts': {
    tests: ['test/integration/pet-repository.test.ts'],
    why: 'joins the reads and the writes: tested against DynamoDB Local',
  },
  'shared/release-check/answer-judgement.ts': {
    tests: ['test/unit/shared/release-check/run-release-check.test.ts'],
    why: "part of the release check's judgement: run-release-check.test.ts tests each reason a probe fails for",
  },
  'shared/release-check/answer-shapes.ts': {
    tests: ['test/unit/shared/release-check/run-release-check.test.ts'],
    why: 'part of the release check\'s judgement: run-release-check.test.ts ("the shapes the check reads without zod")',
  },
  'shared/release-check/canary-probe-metrics.ts': {
    tests: ['test/unit/functions/releaseProber/handler.test.ts', 'test/infra/releases.test.ts'],
    why: "the prober's metric line: read from its log by the prober's test, and named by the stack's alarms",
  },
  'shared/release-check/check-identity.ts': {
    tests: ['test/unit/shared/release-check/run-release-check.test.ts', 'test/integration/authorizer-handler.test.ts'],
    why: "the release check's identity (constants): tested where the check and the authorizer use it",
  },
  'shared/release-check/gateway-events.ts': {
    tests: ['test/unit/shared/release-check/run-release-check.test.ts', 'test/http/request-metrics.test.ts'],
    why: 'the events the check sends: run-release-check.test.ts holds them ("the release check\'s requests")',
  },
  'shared/release-check/hook-deadlines.ts': {
    tests: ['test/infra/releases.test.ts', 'test/unit/functions/releaseCheck/handler.test.ts'],
    why: "the hook's time budget (constants): the stack's timeout and the hook are tested with it",
  },
  'shared/release-check/invocation.ts': {
    tests: ['test/unit/shared/release-check/run-release-check.test.ts'],
    why: 'types only: the release tests write invocations of this type',
  },
  'shared/release-check/probes.ts': {
    tests: ['test/unit/shared/release-check/run-release-check.test.ts'],
    why: 'the probes from the declarations: run-release-check.test.ts ("the probes gathered from the declarations")',
  },
  'shared/release-check/release-key-reader.ts': {
    tests: ['test/unit/functions/releaseCheck/handler.test.ts', 'test/unit/functions/releaseProber/handler.test.ts'],
    why: "API Gateway's key read, for which no emulator exists: the hook's and prober's tests run it on a client of their own",
  },
  'shared/release-check/version-invoker.ts': {
    tests: ['test/unit/functions/releaseCheck/handler.test.ts', 'test/unit/functions/releaseProber/handler.test.ts'],
    why: "Lambda's invocation, for which no emulator exists: the hook's and prober's tests run it on a client of their own",
  },
  'shared/secrets-manager/client.ts': {
    tests: ['test/http/cursor-secret-rotation.test.ts', 'test/integration/cursor-secret-faults.test.ts'],
    why: 'the Secrets Manager client: tested against test/support/fake-secrets-manager.ts, with faults and hangs',
    reachedAtRunTime: { 'test/http/cursor-secret-rotation.test.ts': THROUGH_LOCAL_SERVER },
  },
  'shared/secrets-manager/cursor-keys.ts': {
    tests: ['test/http/cursor-secret-rotation.test.ts', 'test/integration/cursor-secret-faults.test.ts'],
    why: 'reads the cursor secret: tested against test/support/fake-secrets-manager.ts, rotated, failing and hanging',
    reachedAtRunTime: { 'test/http/cursor-secret-rotation.test.ts': THROUGH_LOCAL_SERVER },
  },
  'shared/validation/request-checks.generated.ts': {
    tests: [GENERATED, 'test/codegen/operation-request-checks.test.ts'],
    why: `${GENERATED_WHY}; operation-request-checks.test.ts holds its answers to zod's`,
    reachedAtRunTime: GENERATED_AS_TEXT,
  },
  'shared/validation/request-schema.ts': {
    tests: [
      'test/codegen/operation-request-checks.test.ts',
      'test/unit/shared/http/middleware/validate-request.test.ts',
    ],
    why: "the request validation's types and two small adapters: tested through the checks and the validation",
  },
  'shared/validation/value-checks.ts': {
    tests: ['test/codegen/operation-request-checks.test.ts', 'test/codegen/request-checks.test.ts'],
    why: "called by the generated checks only: held to zod's answers through them",
  },
};
