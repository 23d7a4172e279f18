/**
 * DynamoDB's capacity arithmetic, as its developer guide states it ("DynamoDB item sizes and
 * formats", "DynamoDB read and write operations"), for the partition model (partition-model.ts).
 * Items are in DynamoDB's JSON wire form (`{ name: { S: 'x' } }`), as the model sees them pass.
 */
export interface AttributeValue {
  readonly S?: string;
  readonly N?: string;
  /** base64 on the wire */
  readonly B?: string;
  readonly BOOL?: boolean;
  readonly NULL?: boolean;
  readonly SS?: readonly string[];
  readonly NS?: readonly string[];
  readonly BS?: readonly string[];
  readonly L?: readonly AttributeValue[];
  readonly M?: Readonly<Record<string, AttributeValue>>;
}

export type Item = Record<string, AttributeValue>;

export type ReadConsistency = 'eventual' | 'strong' | 'transactional';

const READ_BLOCK = 4 * 1024;
const WRITE_BLOCK = 1024;
const READ_FACTOR: Record<ReadConsistency, number> = { eventual: 0.5, strong: 1, transactional: 2 };

const utf8Bytes = (text: string): number => Buffer.byteLength(text, 'utf8');

/**
 * A number: 1 byte per two significant digits, plus 1 (leading and trailing zeroes trimmed; the
 * guide calls this approximate).
 */
export function numberSize(text: string): number {
  const digits = text
    .replace(/^[-+]/, '')
    .replace(/[eE].*$/, '')
    .replace('.', '')
    .replace(/^0+/, '')
    .replace(/0+$/, '');
  return Math.ceil(digits.length / 2) + 1;
}

/** The size of a value without its name: a List or Map is 3 bytes plus 1 byte and the size of each element. */
export function valueSize(value: AttributeValue): number {
  if (value.S !== undefined) return utf8Bytes(value.S);
  if (value.N !== undefined) return numberSize(value.N);
  if (value.B !== undefined) return rawBytes(value.B);
  if (value.BOOL !== undefined || value.NULL !== undefined) return 1;
  if (value.SS !== undefined) return value.SS.reduce((sum, text) => sum + utf8Bytes(text), 0);
  if (value.NS !== undefined) return value.NS.reduce((sum, text) => sum + numberSize(text), 0);
  if (value.BS !== undefined) return value.BS.reduce((sum, bytes) => sum + rawBytes(bytes), 0);
  if (value.L !== undefined) return 3 + value.L.reduce((sum, element) => sum + 1 + valueSize(element), 0);
  if (value.M !== undefined)
    return (
      3 + Object.entries(value.M).reduce((sum, [name, element]) => sum + 1 + utf8Bytes(name) + valueSize(element), 0)
    );
  return 0;
}

/** Binary values travel as base64 on the wire; their raw length counts. */
const rawBytes = (base64: string): number => Buffer.from(base64, 'base64').length;

/** The size of an item: the sum of its attribute names and values. */
export function itemSize(item: Item | undefined): number {
  if (item === undefined) return 0;
  return Object.entries(item).reduce((sum, [name, value]) => sum + utf8Bytes(name) + valueSize(value), 0);
}

/** Read units for this many bytes read by one request: per 4 KB or part of it (at least one block), half when eventually consistent. */
export function readUnits(bytes: number, consistency: ReadConsistency): number {
  return Math.max(1, Math.ceil(bytes / READ_BLOCK)) * READ_FACTOR[consistency];
}

/** Write units for an item of this many bytes: per 1 KB or part of it (at least one), double in a transaction. */
export function writeUnits(bytes: number, transactional = false): number {
  return Math.max(1, Math.ceil(bytes / WRITE_BLOCK)) * (transactional ? 2 : 1);
}
