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

/** A number the item must hold (one DynamoDB returns after an `ADD`): absent, it is a fault of ours. */
export function numberOf(item: Item, name: string): number {
  const value = numberIn(item, name);
  if (value === undefined) throw new Error(`the item holds no number "${name}"`);
  return value;
}

/** An attribute's text, or `undefined` when it is absent or not text. */
export function textIn(item: Item | undefined, name: string): string | undefined {
  return item?.[name]?.S;
}

/** Two items with the same attributes, each of the same type and value (items of texts and numbers). */
export function sameItem(stored: Item, written: Item): boolean {
  const attributes = Object.entries(written);
  return (
    Object.keys(stored).length === attributes.length &&
    attributes.every(([name, value]) => sameValue(stored[name], value))
  );
}

function sameValue(stored: AttributeValue | undefined, written: AttributeValue): boolean {
  if (stored === undefined) return false;
  return stored.S !== undefined ? stored.S === written.S : stored.N !== undefined && stored.N === written.N;
}
