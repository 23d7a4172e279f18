import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mergedPage, shareOf, type SourcePage } from '../../../../shared/pets/page-merge';
import type { Pet } from '../../../../shared/pets/schema';

const pet = (id: number): Pet => ({ id, name: `pet ${id}`, categoryId: 1, status: 'available' });

/** Sources holding these ids (each ascending), queried as DynamoDB does: at most `limit`, and where it stopped when it stopped at the limit. */
function sourcesOf(ids: number[][]) {
  const asked: { source: number; afterId: number; limit: number }[] = [];
  const query = async (source: number, afterId: number, limit: number): Promise<SourcePage> => {
    asked.push({ source, afterId, limit });
    const pets = (ids[source] ?? [])
      .filter((id) => id > afterId)
      .slice(0, limit)
      .map(pet);
    return { pets, resumeAfter: pets.length === limit ? pets.at(-1)?.id : undefined };
  };
  return { query, asked };
}

const shardOf = (id: number, shards: number) => id % shards;

describe('a page merged from the shards', () => {
  it('is the next `limit` ids of the union, in ascending order, and says whether more follow (any ids, any spread)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.integer({ min: 1, max: 5_000 }), { maxLength: 300 }),
        fc.integer({ min: 1, max: 100 }),
        fc.integer({ min: 0, max: 5_000 }),
        fc.integer({ min: 1, max: 9 }),
        async (ids, limit, afterId, shards) => {
          const bySource = Array.from({ length: shards }, (_, s) =>
            ids.filter((id) => shardOf(id, shards) === s).sort((a, b) => a - b),
          );
          const { query } = sourcesOf(bySource);
          const page = await mergedPage(shards, query, afterId, limit);
          const expected = ids.filter((id) => id > afterId).sort((a, b) => a - b);
          expect(page.pets.map((p) => p.id)).toEqual(expected.slice(0, limit));
          expect(page.hasMore).toBe(expected.length > limit);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('returns a pet held by two sources once', async () => {
    const { query } = sourcesOf([
      [2, 4, 6],
      [1, 3, 5],
      [1, 2, 3, 4, 5, 6],
    ]);
    const page = await mergedPage(3, query, 0, 4);
    expect(page.pets.map((p) => p.id)).toEqual([1, 2, 3, 4]);
    expect(page.hasMore).toBe(true);
  });

  it('asks each source for twice its share and two more, once, when that fills the page', async () => {
    const ids = Array.from({ length: 400 }, (_, i) => i + 1);
    const { query, asked } = sourcesOf(Array.from({ length: 8 }, (_, s) => ids.filter((id) => id % 8 === s)));
    const page = await mergedPage(8, query, 0, 20);
    expect(page.pets.map((p) => p.id)).toEqual(ids.slice(0, 20));
    expect(asked).toEqual(
      Array.from({ length: 8 }, (_, source) => ({ source, afterId: 0, limit: Math.ceil(42 / 8) + 2 })),
    );
    expect(shareOf(20, 8)).toBe(8);
    expect(shareOf(100, 8)).toBe(28);
  });

  it('emits only ids up to where the first cut source stopped, and asks the cut sources again when the page is short', async () => {
    // Source 0 holds the low ids: its share of a page of 20 over 8 sources (8) stops at 8; the others ended above 1,000.
    const { query, asked } = sourcesOf([
      Array.from({ length: 40 }, (_, i) => i + 1),
      ...Array.from({ length: 7 }, (_, s) => [1_001 + s]),
    ]);
    const page = await mergedPage(8, query, 0, 20);
    expect(page.pets.map((p) => p.id)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(page.hasMore).toBe(true);
    // Then only source 0 again, from where it stopped, for what is missing (21 - 8 known) and 2 more.
    expect(asked.slice(8)).toEqual([{ source: 0, afterId: 8, limit: 21 - 8 + 2 }]);
    expect(asked).toHaveLength(9);
  });

  it('asks again when exactly a page is known and a source stopped short: it cannot yet say whether more follow', async () => {
    // A page of 4 over 8 sources: each is asked for 4; source 0 gives 10 to 40 and stops, the others are empty.
    const { query, asked } = sourcesOf([[10, 20, 30, 40, 50, 60]]);
    expect(await mergedPage(8, query, 0, 4)).toEqual({ pets: [10, 20, 30, 40].map(pet), hasMore: true });
    expect(asked.slice(8)).toEqual([{ source: 0, afterId: 40, limit: 4 + 1 - 4 + 2 }]);
  });
});
