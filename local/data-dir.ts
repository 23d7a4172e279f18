import { resolve } from 'node:path';

/** The local run's region: with its access key it picks DynamoDB Local's database file. */
export const LOCAL_REGION = 'us-east-1';

/** The local run's table (the tests use tables of their own). */
export const LOCAL_TABLE_NAME = 'petstore-local';

/** Where `npm start` keeps its data: DATA_DIR, default `.data/` in the project. */
export function dataDirectory(env: NodeJS.ProcessEnv = process.env): string {
  return resolve(env.DATA_DIR ?? '.data');
}

/** The file in which a running `npm start` leaves its DynamoDB Local endpoint for `npm run keys`. */
export function endpointFile(dataDir: string): string {
  return resolve(dataDir, 'dynamodb-endpoint');
}
