/** The deployed stages: one stack each, `PetStore-<stage>`, side by side in one account and region. */
export const STAGES = ['staging', 'prod'] as const;
export type Stage = (typeof STAGES)[number];
