import { describe, expect, it } from 'vitest';
import { measuredIn, parseBenchArguments, PARTS } from '../../bench/arguments';
import { BODY_SHAPE_NAMES } from '../../bench/body-shapes';
import { BENCH_FUNCTIONS } from '../../bench/cases';

/**
 * `npm run bench`'s arguments (bench/arguments.ts): a whole run, a part of every function printed,
 * or some functions' parts merged into the results; a name it does not know is refused with the
 * names it knows.
 */
describe('npm run bench arguments', () => {
  it('without arguments: every part but the profile, of every function, rewriting the results', () => {
    expect(parseBenchArguments([])).toEqual({
      parts: ['cold', 'overhead', 'bodies', 'e2e', 'requests', 'load', 'scale'],
      functions: BENCH_FUNCTIONS,
      write: 'all',
      scaleCases: undefined,
    });
  });

  it('--only alone: those parts of every function, printed and written nowhere (as before --operation)', () => {
    expect(parseBenchArguments(['--only', 'overhead', '--only', 'e2e'])).toEqual({
      parts: ['overhead', 'e2e'],
      functions: BENCH_FUNCTIONS,
      write: 'none',
      scaleCases: undefined,
    });
    expect(parseBenchArguments(['--only', 'scale', '--case', 'mix'])).toMatchObject({
      parts: ['scale'],
      write: 'none',
      scaleCases: ['mix'],
    });
    expect(parseBenchArguments(['--only', 'bodies'])).toEqual({
      parts: ['bodies'],
      functions: BENCH_FUNCTIONS,
      write: 'none',
      scaleCases: undefined,
    });
  });

  it("--operation: that function's cases in those parts, merged; repeatable; the authorizer by its name", () => {
    expect(parseBenchArguments(['--only', 'e2e', '--operation', 'getPet'])).toEqual({
      parts: ['e2e'],
      functions: ['getPet'],
      write: 'merge',
      scaleCases: undefined,
    });
    // The profile only prints, with --operation too.
    expect(parseBenchArguments(['--only', 'profile', '--operation', 'getPet'])).toMatchObject({
      parts: ['profile'],
      functions: ['getPet'],
      write: 'none',
    });
    expect(
      parseBenchArguments([
        '--only',
        'e2e',
        '--only',
        'requests',
        '--operation',
        'getPet',
        '--operation',
        'authorizer',
      ]),
    ).toEqual({
      parts: ['e2e', 'requests'],
      functions: ['getPet', 'authorizer'],
      write: 'merge',
      scaleCases: undefined,
    });
  });

  it('--operation without --only: every part that measures something of it (the authorizer has no load row of its own; only createPet is sent the bodies)', () => {
    expect(parseBenchArguments(['--operation', 'getPet']).parts).toEqual([
      'cold',
      'overhead',
      'e2e',
      'requests',
      'load',
      'scale',
    ]);
    expect(parseBenchArguments(['--operation', 'createPet']).parts).toEqual([
      'cold',
      'overhead',
      'bodies',
      'e2e',
      'requests',
      'load',
      'scale',
    ]);
    expect(parseBenchArguments(['--only', 'bodies', '--operation', 'createPet'])).toEqual({
      parts: ['bodies'],
      functions: ['createPet'],
      write: 'merge',
      scaleCases: undefined,
    });
    expect(parseBenchArguments(['--operation', 'authorizer']).parts).toEqual([
      'cold',
      'overhead',
      'e2e',
      'requests',
      'scale',
    ]);
  });

  it('refuses an unknown part, naming the parts', () => {
    expect(() => parseBenchArguments(['--only', 'e3e'])).toThrow(
      `--only e3e: no such part; the parts are ${PARTS.join(', ')}`,
    );
    expect(() => parseBenchArguments(['--only', 'e3e', '--operation', 'getPet'])).toThrow(
      'the parts are cold, overhead, bodies, e2e, requests, load, scale, profile',
    );
  });

  it('refuses an unknown operation, naming the functions the bench runs', () => {
    expect(() => parseBenchArguments(['--operation', 'getPets'])).toThrow(
      `--operation getPets: the bench runs no such function; it runs ${BENCH_FUNCTIONS.join(', ')}`,
    );
    // Every declared operation, then the authorizer.
    expect(() => parseBenchArguments(['--operation', 'getPets'])).toThrow(
      /it runs listPets, createPet, (\w+, )*authorizer$/,
    );
  });

  it('refuses a part that measures nothing of the function, --case with --operation, an unknown scale case and an unknown option', () => {
    expect(() => parseBenchArguments(['--only', 'load', '--operation', 'authorizer'])).toThrow(
      '--only load --operation authorizer: that part measures nothing of authorizer',
    );
    expect(() => parseBenchArguments(['--only', 'bodies', '--operation', 'getPet'])).toThrow(
      '--only bodies --operation getPet: that part measures nothing of getPet',
    );
    expect(() => parseBenchArguments(['--only', 'scale', '--operation', 'getPet', '--case', 'mix'])).toThrow(
      'leave --case out',
    );
    expect(() => parseBenchArguments(['--only', 'scale', '--case', 'max'])).toThrow(
      '--case max: no such scale case; they are getPet, getPetOnePet, listPets',
    );
    expect(() => parseBenchArguments(['--operations', 'getPet'])).toThrow(
      'npm run bench takes --only <part>, --operation <function> and --case <scale case>',
    );
  });

  it('tells what each part measures of a function: its main case, its timed cases, its body shapes, its measured cases, its scale cases (the mix among them)', () => {
    expect(measuredIn('e2e', 'getPet')).toEqual(['getPet']);
    expect(measuredIn('overhead', 'listPets')).toEqual(['listPets', 'invalid', 'unauthorized']);
    expect(measuredIn('requests', 'authorizer')).toEqual(['authorize', 'authorizeUnknown']);
    expect(measuredIn('load', 'authorizer')).toEqual([]);
    expect(measuredIn('bodies', 'createPet')).toEqual(BODY_SHAPE_NAMES);
    expect(measuredIn('bodies', 'getPet')).toEqual([]);
    expect(measuredIn('scale', 'getPet')).toEqual([
      'getPet',
      'getPetOnePet',
      'mix',
      'oneKeyGetPet',
      'oneEnterpriseKeyGetPet',
    ]);
    expect(measuredIn('scale', 'authorizer')).toEqual(['mix', 'keyLookups']);
  });
});
