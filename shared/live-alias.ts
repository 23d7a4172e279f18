/** The alias every caller of a function invokes (API Gateway, the schedules, the release prober), never `$LATEST`: a release moves it (infra/releases.ts). */
export const LIVE_ALIAS = 'live';
