import { describe, expect, it } from 'vitest';
import { petJson, petsJson } from '../../../../shared/pets/pet-json';
import { Pet, PET_STATUSES } from '../../../../shared/pets/schema';

const names = [
  'Rex',
  'Ünïcödé 🐕',
  'quote " and \\ backslash',
  'control \u0001\u001f and \n\t',
  'line \u2028 separator',
  '</script>',
  'x'.repeat(100),
];
const pets: Pet[] = names.map((name, i) => ({
  id: i === 0 ? Number.MAX_SAFE_INTEGER : i + 1,
  name,
  categoryId: 3 + i,
  status: PET_STATUSES[i % 3] as Pet['status'],
}));

describe('petJson', () => {
  it('writes exactly what JSON.stringify writes, for every field of the Pet schema', () => {
    for (const pet of pets) expect(petJson(pet)).toBe(JSON.stringify(pet));
    expect(Object.keys(JSON.parse(petJson(pets[0] as Pet)))).toEqual(Object.keys(Pet.shape));
  });

  it('writes a page as a JSON array, an empty one too', () => {
    expect(petsJson(pets)).toBe(JSON.stringify(pets));
    expect(petsJson([])).toBe('[]');
    expect(petsJson(pets.slice(0, 1))).toBe(JSON.stringify(pets.slice(0, 1)));
  });
});
