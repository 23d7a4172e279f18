import * as z from 'zod/mini';

/** No query parameters at all: an unknown one is a 400, not ignored. */
export const NoQuery = z.strictObject({});
