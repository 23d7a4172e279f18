import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { drawPetId } from '../shared/pets/pet-ids';
import type { SetupFill } from './children/events.mjs';

/**
 * Data a bench case needs before each of its requests, made untimed: a case names its setup
 * (`setup: 'freshPet'`, bench/cases.ts), and every runner that sends the case to a table makes one
 * fill per request it will send, through the service's own code, before its timed part starts (a
 * pool), and sends each request with a fill of its own (events.mjs, `withFill`): the cold starts,
 * the profile, the end-to-end run, the DynamoDB measurement, the load run and the parity test. A
 * request that uses up its data (a delete) so never meets data an earlier request used.
 *
 * The pool is made by the parent, in TypeScript, before the child starts, rather than by a bundled
 * hook inside the child between timed requests: the children stay plain JS that only take the
 * next fill; no write to DynamoDB Local runs between two timed requests (it would change what the
 * next one is timed against); and the load run needs its data ready anyway (autocannon builds
 * each request synchronously). A case names its setup rather than holding a function, so that it
 * stays plain data (a declaration file can hold it without importing the bench or the SDK).
 *
 * The overhead run makes none: its DynamoDB is a stub without state (children/stub.mjs), which
 * answers each request as though its data were there (every pet id is found), so the case sends its
 * setup's placeholder there, and every request finds what a fresh one would.
 */
export interface BenchTable {
  readonly client: DynamoDBClient;
  readonly tableName: string;
}

export interface BenchSetup {
  readonly description: string;
  /**
   * What a request sends where no data is made (bench/cases.ts fills it into the case's spec): the
   * overhead run, whose stub answers as though the data were there, and runs against a DynamoDB
   * that answers nothing (the fault suite). Valid as a request, and no data of any table.
   */
  readonly placeholder: SetupFill;
  /** The data of `count` requests, each its own, made through the service's code: their fills, in order. */
  make(table: BenchTable, count: number): Promise<SetupFill[]>;
}

/** At most this many writes in flight while a pool is made (DynamoDB Local on two cores: a few seconds for the load run's 3,000). */
const IN_FLIGHT = 16;

/** `make(n)` for n in 0 … count - 1, IN_FLIGHT at a time; the results in order. */
async function inTurn<T>(count: number, make: (n: number) => Promise<T>): Promise<T[]> {
  const made: T[] = new Array(count);
  let next = 0;
  const worker = async () => {
    for (let n = next++; n < count; n = next++) made[n] = await make(n);
  };
  await Promise.all(Array.from({ length: Math.min(IN_FLIGHT, count) }, worker));
  return made;
}

/** The pets fresh-pet requests read: alike but for their ids, so that ours and the baseline, each reading its own, answer alike (the parity test). */
export const FRESH_PET = { name: 'Bench pet', categoryId: 3, status: 'available' } as const;

export const BENCH_SETUPS = {
  freshPet: {
    description:
      'a pet of its own per request, created through the repository (shared/pets/repository.ts: the create createPet makes), its id in the path',
    // An id as a create draws them (2026-01-02), which no create of the bench draws.
    placeholder: { pathParameters: { petId: String(drawPetId(Date.UTC(2026, 0, 2), () => 1)) } },
    async make({ client, tableName }, count) {
      // Imported when data is made: the cases (and what reads them) need no SDK write code.
      const { DynamoDbPetRepository } = await import('../shared/pets/repository');
      const pets = new DynamoDbPetRepository(client, tableName);
      return inTurn(count, async () => ({
        pathParameters: { petId: String((await pets.create({ ...FRESH_PET })).id) },
      }));
    },
  },
} as const satisfies Record<string, BenchSetup>;

export type SetupName = keyof typeof BENCH_SETUPS;

/** The setup's fills for `count` requests of a case (none without a setup): one each, in order. */
export async function fillsFor(
  benchCase: { readonly name: string; readonly setup?: SetupName | undefined },
  table: BenchTable,
  count: number,
): Promise<SetupFill[] | undefined> {
  if (benchCase.setup === undefined) return undefined;
  const fills = await BENCH_SETUPS[benchCase.setup].make(table, count);
  if (fills.length !== count)
    throw new Error(`${benchCase.name}: its setup ${benchCase.setup} made ${fills.length} fills for ${count} requests`);
  return fills;
}

/**
 * A value with the values a fill put in written as the names they fill (`{petId}`), in any string
 * or as a whole number: two answers to requests with data of their own (ours and the baseline's,
 * each with a fresh pet) compare so.
 */
export function withPlaceholders(value: unknown, fill: SetupFill | undefined): unknown {
  const filled = Object.entries({ ...fill?.pathParameters, ...fill?.query });
  if (filled.length === 0) return value;
  const named = (found: unknown): unknown => {
    if (typeof found === 'string')
      return filled.reduce((text, [name, given]) => text.replaceAll(given, `{${name}}`), found);
    if (typeof found === 'number') {
      const name = filled.find(([, given]) => given === String(found))?.[0];
      return name === undefined ? found : `{${name}}`;
    }
    if (Array.isArray(found)) return found.map(named);
    if (found !== null && typeof found === 'object')
      return Object.fromEntries(Object.entries(found).map(([key, inner]) => [key, named(inner)]));
    return found;
  };
  return named(value);
}
