/**
 * The seed of a file's generated cases: FUZZ_SEED replays a run, otherwise each run draws a new
 * one. Printed at once, so that a failing run can be replayed whatever the failure prints.
 */
export function runSeed(file: string): number {
  const seed = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
  process.stdout.write(`${file} seed: ${seed} (replay with FUZZ_SEED=${seed})\n`);
  return seed;
}
