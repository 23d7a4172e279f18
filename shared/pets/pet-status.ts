import * as z from 'zod/mini';
import { described } from './describe';
import { PET_STATUSES } from './fields';

export const PetStatus = described(z.enum(PET_STATUSES, { error: `must be one of ${PET_STATUSES.join(', ')}` }), {
  description: 'Availability of the animal.',
});
export type PetStatus = z.infer<typeof PetStatus>;
