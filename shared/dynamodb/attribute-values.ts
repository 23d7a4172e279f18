import type { AttributeValue } from '@aws-sdk/client-dynamodb';

/**
 * Items as DynamoDB's API writes them: every value tagged with its type (`{ S: 'Rex' }`,
 * `{ N: '42' }`). The operations' functions talk to DynamoDB in this form, with the plain client,
 * rather than through the document client (@aws-sdk/lib-dynamodb), whose marshalling of any value
 * costs them 2 to 3 % of a cold start (docs/performance.md#what-a-cold-start-spends). Their items
 * hold only text, integers and one map, so each repository writes and reads its own shapes here.
 */
export type Item = Record<string, AttributeValue>;

export const text = (value: string): AttributeValue.SMember => ({ S: value });

/** Integers only (every number of ours is a safe integer): their decimal digits, as DynamoDB's `N`. */
export const integer = (value: number): AttributeValue.NMember => ({ N: String(value) });

/** An attribute's number, or `undefined` when it is absent or not a number. */
export function numberIn(item: Item | undefined, name: string): number | undefined {
  const digits = item?.[name]?.N;
  return digits === undefined ? undefined : Number(digits);
}

/** An attribute's text, or `undefined` when it is absent or not text. */
export function textIn(item: Item | undefined, name: string): string | undefined {
  return item?.[name]?.S;
}

/** Two items with the same attributes, each of the same type and value (items of texts and numbers). */
export function sameItem(stored: Item, written: Item): boolean {
  const names = Object.keys(written);
  return Object.keys(stored).length === names.length && names.every((name) => sameValue(stored[name], written[name]));
}

function sameValue(a: AttributeValue | undefined, b: AttributeValue | undefined): boolean {
  if (a === undefined || b === undefined) return false;
  return a.S !== undefined ? a.S === b.S : a.N !== undefined && a.N === b.N;
}
