import { z } from 'zod';
import { ERROR_CODES } from '../errors';

/**
 * The Error body of the interface (`code`, `message`, `status`) with the optional `details` of
 * decisions.md. The error shaping builds it; the interface description declares it from here.
 */
export const ErrorDetailBody = z
  .strictObject({
    path: z.string().meta({ description: 'Where the request failed: `body.name`, `query.limit`, `path.petId`, ...', examples: ['body.name'] }),
    message: z.string().meta({ description: 'What is wrong there.', examples: ['is required'] }),
  })
  .meta({ description: 'One failing field of an invalid request.' });

export const ErrorBody = z
  .strictObject({
    code: z.enum(ERROR_CODES).meta({ description: 'Machine-readable error code.' }),
    message: z.string().min(1).meta({ description: 'Human-readable description.' }),
    status: z.int().min(400).max(599).meta({ description: 'The HTTP status code.' }),
    details: z.array(ErrorDetailBody).min(1).optional().meta({ description: 'On a 400: every failing field, so a client can fix its request in one go.' }),
  })
  .meta({ description: 'Every error response: the code, a message, and the HTTP status again.' });

export type ErrorBody = z.infer<typeof ErrorBody>;
