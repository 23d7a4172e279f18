import * as z from 'zod/mini';
import { ERROR_CODES } from '../errors';

/**
 * The Error body of the interface (`code`, `message`, `status`) with the optional `details` of
 * decisions.md. The error shaping builds it; the interface description declares it from here.
 */
export const ErrorDetailBody = z.strictObject({
  path: z.string().register(z.globalRegistry, {
    description: 'Where the request failed: `body.name`, `query.limit`, `path.petId`, ...',
    examples: ['body.name'],
  }),
  message: z.string().register(z.globalRegistry, { description: 'What is wrong there.', examples: ['is required'] }),
});
z.globalRegistry.add(ErrorDetailBody, { description: 'One failing field of an invalid request.' });

export const ErrorBody = z.strictObject({
  code: z.enum(ERROR_CODES).register(z.globalRegistry, { description: 'Machine-readable error code.' }),
  message: z.string().check(z.minLength(1)).register(z.globalRegistry, { description: 'Human-readable description.' }),
  status: z
    .int()
    .check(z.minimum(400), z.maximum(599))
    .register(z.globalRegistry, { description: 'The HTTP status code.' }),
  details: z.optional(z.array(ErrorDetailBody).check(z.minLength(1))).register(z.globalRegistry, {
    description:
      "On a 400: the failing fields, so a client can fix its request in one go. At most 20 are named; when more fail, one more entry, whose path is `(more)`, says how many. A path longer than 100 characters (a field name can be any length) is cut to 100, the last an ellipsis; messages are the service's own and never cut.",
  }),
});
z.globalRegistry.add(ErrorBody, {
  description: 'Every error response: the code, a message, and the HTTP status again.',
});

export type ErrorBody = z.infer<typeof ErrorBody>;
