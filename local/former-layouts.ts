import { QueryCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { text } from '../shared/dynamodb/attribute-values';

/**
 * The layouts of earlier versions that this one no longer reads, moves or grants any right on
 * (docs/upgrading-pets.md): every pet under one partition (`PET`, ids from the `SEQUENCE`
 * counter, listed by status through the `byStatus` index), and every API key under one
 * (`APIKEY`, the hash as sort key). A table still holding them is moved once by the last version
 * that carries the moves, LAST_VERSION_WITH_THE_MOVES: its `npm start` moves a data directory's
 * keys and pets, and its `npm run pets-upgrade` and deploys take a stage through the steps.
 *
 * What that version leaves behind is no former layout: the retired counter (`SEQUENCE`, set to
 * 2^53 - 1, never deleted) and the `byStatus` index of a data directory it moved stay, and nothing
 * reads them. Only items under `PET` or `APIKEY` mean that the move has not run (or did not finish).
 */
export const LAST_VERSION_WITH_THE_MOVES = 'de7ab16';

/** Every pet of the former pets layout. */
export const FORMER_PET_PARTITION = 'PET';
/** Every API key of the former key layout. */
export const FORMER_KEY_PARTITION = 'APIKEY';

export type FormerLayout = 'pets' | 'keys';

const PARTITION_OF: Readonly<Record<FormerLayout, string>> = { pets: FORMER_PET_PARTITION, keys: FORMER_KEY_PARTITION };

/** Whether the partition holds an item: one strongly consistent read of one item at most. */
export async function holdsItemsUnder(client: DynamoDBClient, tableName: string, partition: string): Promise<boolean> {
  const { Items = [] } = await client.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': text(partition) },
      Limit: 1,
      ConsistentRead: true,
    }),
  );
  return Items.length > 0;
}

/** The former layouts the table still holds items of (none for a table of this version, or one the last version with the moves moved). */
export async function formerLayoutsIn(client: DynamoDBClient, tableName: string): Promise<FormerLayout[]> {
  const layouts: FormerLayout[] = ['pets', 'keys'];
  const held = await Promise.all(layouts.map((layout) => holdsItemsUnder(client, tableName, PARTITION_OF[layout])));
  return layouts.filter((_, i) => held[i]);
}

/**
 * Why npm start refuses a table of a former layout, and how to move it, in one line: `where` names
 * the data directory (or the table and its endpoint).
 */
export function formerLayoutRefusal(where: string, layouts: readonly FormerLayout[]): string {
  const what =
    layouts.length === 2
      ? 'pets and API keys of the former layouts (under PET and APIKEY)'
      : layouts[0] === 'keys'
        ? 'API keys of the former layout (under APIKEY)'
        : 'pets of the former layout (under PET)';
  return (
    `${where} holds ${what}, which this version no longer moves. Move them once with the last version that does: ` +
    `git checkout ${LAST_VERSION_WITH_THE_MOVES} && npm start (with the same settings), then Ctrl-C and start this version again (docs/upgrading-pets.md).`
  );
}
