import { describe, expect, it } from 'vitest';
import type { CallDeadline } from '../../../../shared/dynamodb/call-deadline';
import { NotFoundError } from '../../../../shared/errors';
import type { CursorPosition } from '../../../../shared/pets/cursor';
import type { PageRequest, PetPage, PetReads } from '../../../../shared/pets/pet-reads';
import type { PetWriteOptions, PetWrites } from '../../../../shared/pets/pet-writes';
import type { NewPet, Pet } from '../../../../shared/pets/schema';
import { createPet, getPet, listPets, type PageCursors } from '../../../../shared/pets/service';

/**
 * The use cases over the repository's interfaces, each call recorded: what they ask of the reads,
 * the writes and the page cursors, and what they answer. (Against DynamoDB Local, through HTTP:
 * test/http/list-pets.test.ts, create-and-get-pet.test.ts, idempotent-creates.test.ts.)
 */
const rex: Pet = { id: 10, name: 'Rex', categoryId: 1, status: 'available' };
const tom: Pet = { id: 12, name: 'Tom', categoryId: 2, status: 'available' };
const deadline: CallDeadline = { signalForCall: () => new AbortController().signal } as unknown as CallDeadline;

function recordingReads(page: PetPage, found: Pet | undefined = undefined) {
  const calls: unknown[][] = [];
  const pets: PetReads = {
    get: (id, callDeadline) => {
      calls.push(['get', id, callDeadline]);
      return Promise.resolve(found);
    },
    list: (request: PageRequest, callDeadline) => {
      calls.push(['list', request, callDeadline]);
      return Promise.resolve(page);
    },
  };
  return { pets, calls };
}

function recordingCursors(decoded: CursorPosition = { afterId: 0, status: undefined }) {
  const calls: unknown[][] = [];
  const cursors: PageCursors = {
    prepare: () => {
      calls.push(['prepare']);
    },
    encode: (position, callDeadline) => {
      calls.push(['encode', position, callDeadline]);
      return Promise.resolve(`cursor-after-${position.afterId}`);
    },
    decode: (cursor, status, callDeadline) => {
      calls.push(['decode', cursor, status, callDeadline]);
      return Promise.resolve(decoded);
    },
  };
  return { cursors, calls };
}

describe('listPets', () => {
  it('reads the first page from id 0, prepares the cursor keys first, and signs no cursor for the last page', async () => {
    const reads = recordingReads({ pets: [rex, tom], hasMore: false, newestId: 99 });
    const cursors = recordingCursors();
    const listing = await listPets(
      { pets: reads.pets, cursors: cursors.cursors },
      { limit: 2, status: undefined, cursor: undefined },
      deadline,
    );
    expect(listing).toStrictEqual({ pets: [rex, tom], nextCursor: undefined });
    expect(cursors.calls).toStrictEqual([['prepare']]);
    expect(reads.calls).toStrictEqual([
      ['list', { afterId: 0, limit: 2, status: undefined, newestId: undefined }, deadline],
    ]);
  });

  it("reads the page after the cursor's id, up to its bound at least, for the filter, and signs a cursor after the page's last pet, with the page's bound, when more follow", async () => {
    const reads = recordingReads({ pets: [rex, tom], hasMore: true, newestId: 99 });
    const cursors = recordingCursors({ afterId: 7, status: 'available', newestId: 50 });
    const listing = await listPets(
      { pets: reads.pets, cursors: cursors.cursors },
      { limit: 2, status: 'available', cursor: 'given' },
      deadline,
    );
    expect(listing).toStrictEqual({ pets: [rex, tom], nextCursor: 'cursor-after-12' });
    expect(cursors.calls).toStrictEqual([
      ['prepare'],
      ['decode', 'given', 'available', deadline],
      ['encode', { afterId: 12, status: 'available', newestId: 99 }, deadline],
    ]);
    expect(reads.calls).toStrictEqual([
      ['list', { afterId: 7, limit: 2, status: 'available', newestId: 50 }, deadline],
    ]);
  });

  it('signs no cursor for an empty page, even one that says more follow', async () => {
    const reads = recordingReads({ pets: [], hasMore: true, newestId: 99 });
    const cursors = recordingCursors();
    const listing = await listPets(
      { pets: reads.pets, cursors: cursors.cursors },
      { limit: 2, status: undefined, cursor: undefined },
    );
    expect(listing).toStrictEqual({ pets: [], nextCursor: undefined });
    expect(cursors.calls).toStrictEqual([['prepare']]);
  });
});

describe('createPet', () => {
  const newPet: NewPet = { name: 'Rex', categoryId: 1, status: 'available' };
  const beforeWrite = Promise.resolve();

  function recordingWrites() {
    const calls: unknown[][] = [];
    const pets: PetWrites = {
      create: (pet: NewPet, options?: PetWriteOptions) => {
        calls.push(['create', pet, options]);
        return Promise.resolve(rex);
      },
      createOnce: (pet, key, options) => {
        calls.push(['createOnce', pet, key, options]);
        return Promise.resolve({ pet: tom, replayed: true });
      },
    };
    return { pets, calls };
  }

  it('without an idempotency key: creates, passing the deadline and the admission on, never a replay', async () => {
    const writes = recordingWrites();
    expect(await createPet({ pets: writes.pets }, newPet, { deadline, beforeWrite })).toStrictEqual({
      pet: rex,
      replayed: false,
    });
    expect(writes.calls).toStrictEqual([['create', newPet, { deadline, beforeWrite }]]);
  });

  it('with one: creates at most once for the key, and answers what that answers', async () => {
    const writes = recordingWrites();
    const key = { owner: '0123456789abcdef', value: 'k-1' };
    expect(
      await createPet({ pets: writes.pets }, newPet, { deadline, beforeWrite, idempotencyKey: key }),
    ).toStrictEqual({ pet: tom, replayed: true });
    expect(writes.calls).toStrictEqual([['createOnce', newPet, key, { deadline, beforeWrite }]]);
  });

  it('with no options at all: a plain create', async () => {
    const writes = recordingWrites();
    expect(await createPet({ pets: writes.pets }, newPet)).toStrictEqual({ pet: rex, replayed: false });
    expect(writes.calls).toStrictEqual([['create', newPet, {}]]);
  });
});

describe('getPet', () => {
  it('answers the pet found, asking with the deadline', async () => {
    const reads = recordingReads({ pets: [], hasMore: false, newestId: 99 }, rex);
    expect(await getPet({ pets: reads.pets }, 10, deadline)).toBe(rex);
    expect(reads.calls).toStrictEqual([['get', 10, deadline]]);
  });

  it('is a 404 naming the id when no pet has it', async () => {
    const reads = recordingReads({ pets: [], hasMore: false, newestId: 99 });
    const failure = await getPet({ pets: reads.pets }, 42).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(NotFoundError);
    expect((failure as NotFoundError).message).toBe('No pet has the id 42.');
  });
});
