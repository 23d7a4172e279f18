import * as z from 'zod/mini';
import { described } from './describe';
import { PET_STATUSES, STATUS_MESSAGE } from './fields';

export const PetStatus = described(z.enum(PET_STATUSES, { error: STATUS_MESSAGE }), {
  description: 'Availability of the animal.',
});
export type PetStatus = z.infer<typeof PetStatus>;
