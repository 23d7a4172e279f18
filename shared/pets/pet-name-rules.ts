import { NAME_MAX_LENGTH } from './fields';
import { HIDDEN_CLASS, VISIBLE_CHARACTER_PATTERN } from './name-pattern';

/**
 * A new pet's name, checked step by step to say which part failed: PetName (new-pet.ts) and the
 * createPet checks generated from it both run these. The name is trimmed first (ECMAScript's
 * `String.prototype.trim`); name-pattern.ts states the same rule as two patterns for the interface
 * description.
 */
export const NAME_TYPE_MESSAGE = 'must be a string';
export const NAME_EMPTY_MESSAGE = 'must not be empty or only white space';

// Without the `u` flag: the hidden characters are all in the Basic Multilingual Plane, one UTF-16 unit each.
const HIDDEN = new RegExp(`[${HIDDEN_CLASS}]`);
const VISIBLE = new RegExp(VISIBLE_CHARACTER_PATTERN, 'u');

/** The trimmed name already failed a rule before the hidden and visible characters: empty, a lone surrogate, too long. */
const failsAbove = (name: string): boolean =>
  name.length === 0 || !name.isWellFormed() || codePointLength(name) > NAME_MAX_LENGTH;

/**
 * The rules on the trimmed, non-empty name, in order. Each is checked, as zod checks refinements;
 * the last two speak only when none above them failed, so that a name gets one message where one says it all.
 */
export const NAME_RULES: readonly { readonly holds: (name: string) => boolean; readonly message: string }[] = [
  { holds: (name) => name.isWellFormed(), message: 'must be valid Unicode text (it holds a lone surrogate)' },
  {
    holds: (name) => codePointLength(name) <= NAME_MAX_LENGTH,
    message: `must be at most ${NAME_MAX_LENGTH} characters`,
  },
  {
    holds: (name) => failsAbove(name) || !HIDDEN.test(name),
    message: 'must not hold control characters or bidirectional controls',
  },
  {
    holds: (name) => failsAbove(name) || HIDDEN.test(name) || VISIBLE.test(name),
    message: 'must hold at least one visible character (not only format characters such as U+200B)',
  },
];

function codePointLength(text: string): number {
  let length = 0;
  for (const _ of text) length += 1;
  return length;
}
