import { describe, expect, it } from 'vitest';
import { ListPetsQuery, MAX_ID, NewPet, PetIdPath } from '../../../../shared/pets/schema';

describe('NewPet', () => {
  it('trims the name and defaults status to available', () => {
    expect(NewPet.parse({ name: '  Rex  ', categoryId: 1 })).toEqual({
      name: 'Rex',
      categoryId: 1,
      status: 'available',
    });
  });

  it('keeps a given status', () => {
    expect(NewPet.parse({ name: 'Rex', categoryId: 1, status: 'sold' }).status).toBe('sold');
  });

  it.each([
    ['empty name', { name: '', categoryId: 1 }, ['name']],
    ['white-space name', { name: ' \t\n ', categoryId: 1 }, ['name']],
    ['name of 101 characters', { name: 'x'.repeat(101), categoryId: 1 }, ['name']],
    ['name that is a number', { name: 5, categoryId: 1 }, ['name']],
    ['lone surrogate in name', { name: 'a\ud800b', categoryId: 1 }, ['name']],
    ['missing categoryId', { name: 'Rex' }, ['categoryId']],
    ['categoryId 0', { name: 'Rex', categoryId: 0 }, ['categoryId']],
    ['negative categoryId', { name: 'Rex', categoryId: -4 }, ['categoryId']],
    ['fractional categoryId', { name: 'Rex', categoryId: 1.5 }, ['categoryId']],
    ['categoryId beyond 2^53 - 1', { name: 'Rex', categoryId: MAX_ID + 1 }, ['categoryId']],
    ['categoryId as a string', { name: 'Rex', categoryId: '1' }, ['categoryId']],
    ['unknown status', { name: 'Rex', categoryId: 1, status: 'lost' }, ['status']],
    ['status null', { name: 'Rex', categoryId: 1, status: null }, ['status']],
  ])('refuses %s', (_, body, paths) => {
    const result = NewPet.safeParse(body);
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => issue.path.join('.'))).toEqual(paths);
  });

  it('refuses unknown fields and names them', () => {
    const result = NewPet.safeParse({ name: 'Rex', categoryId: 1, staus: 'sold' });
    expect(result.error?.issues).toEqual([expect.objectContaining({ code: 'unrecognized_keys', keys: ['staus'] })]);
  });

  it('counts characters as code points: 100 emoji are a valid name, 101 are not', () => {
    expect(NewPet.safeParse({ name: '🐶'.repeat(100), categoryId: 1 }).success).toBe(true);
    expect(NewPet.safeParse({ name: '🐶'.repeat(101), categoryId: 1 }).success).toBe(false);
  });

  it('says one thing of a name where one says it all: a name too long is not also said to hold a control character', () => {
    const messagesOf = (name: string) =>
      NewPet.safeParse({ name, categoryId: 1 }).error?.issues.map((issue) => issue.message);
    expect(messagesOf(`${'x'.repeat(100)}\u0007`)).toEqual(['must be at most 100 characters']);
    expect(messagesOf(`${'x'.repeat(99)}\u0007`)).toEqual([
      'must not hold control characters or bidirectional controls',
    ]);
    expect(messagesOf(`${'🐶'.repeat(99)}\u0007`)).toEqual([
      'must not hold control characters or bidirectional controls',
    ]);
    expect(messagesOf(`${'x'.repeat(100)}\u200b`)).toEqual(['must be at most 100 characters']);
  });

  it('accepts the largest safe id', () => {
    expect(NewPet.parse({ name: 'Rex', categoryId: MAX_ID }).categoryId).toBe(MAX_ID);
  });
});

describe('ListPetsQuery', () => {
  it('defaults limit to 20', () => {
    expect(ListPetsQuery.parse({})).toEqual({ limit: 20 });
  });

  it.each(['1', '37', '100'])('accepts limit=%s', (limit) => {
    expect(ListPetsQuery.parse({ limit }).limit).toBe(Number(limit));
  });

  it.each(['0', '101', '-1', '1.5', '1e1', ' 5', '0x10', '', 'ten', '99999', '01', '0100', '007'])(
    'refuses limit=%j',
    (limit) => {
      expect(ListPetsQuery.safeParse({ limit }).success).toBe(false);
    },
  );

  it('refuses an unknown status and unknown parameters', () => {
    expect(ListPetsQuery.safeParse({ status: 'lost' }).success).toBe(false);
    expect(ListPetsQuery.safeParse({ stauts: 'sold' }).success).toBe(false);
  });
});

describe('PetIdPath', () => {
  it.each([
    ['1', 1],
    [String(MAX_ID), MAX_ID],
  ])('accepts %s', (petId, id) => {
    expect(PetIdPath.parse({ petId })).toEqual({ petId: id });
  });

  it.each(['0', '-1', '01', '1.0', 'abc', '', String(MAX_ID + 1), '99999999999999999', '1e3'])(
    'refuses %j',
    (petId) => {
      expect(PetIdPath.safeParse({ petId }).success).toBe(false);
    },
  );
});
