/** The table's keys and the item kinds' partition key patterns (ITEM_PARTITIONS), as regular expressions' sources (stringLikeSource). */
export interface StubTable {
  readonly partitionKey: string;
  readonly sortKey: string;
  readonly partitions: Readonly<Record<string, string>>;
  /** How many shards pets are spread over (PET_SHARDS): `PET#<id mod petShards>`, `<status>#<id mod petShards>`. */
  readonly petShards: number;
}

// biome-ignore lint/suspicious/noExplicitAny: each command's own input type (the SDK's), which a map of every command cannot name
export type StubCommands = Readonly<Record<string, (input: any) => unknown>>;

export function dynamoDbStub(options: { table: StubTable; benchKey: string }): {
  /** What the stub could not answer, in order. */
  readonly misses: string[];
  /** For DynamoDBDocumentClient (our authorizer's key registry): plain items. */
  readonly documentClient: StubCommands;
  /** For DynamoDBClient (our operations and the baseline): attribute values. */
  readonly client: StubCommands;
};
export function install(Client: { prototype: { send: unknown } }, commands: StubCommands, misses?: string[]): void;
