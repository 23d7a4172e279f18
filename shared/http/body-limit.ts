import type { ApiProblem } from '../errors';

/**
 * The largest request body any route accepts, in bytes: 16 KiB, what AWS WAF inspects of a body at
 * API Gateway without extra charge, so that the stage's web ACL (infra/waf.ts) can refuse a larger
 * one before anything runs; a new pet is under 1 KiB. The local server's stand-in for the web ACL
 * refuses the same, and each function checks it again before it reads a body (one without the web
 * ACL in front: a direct invocation, the bench).
 */
export const MAX_BODY_BYTES = 16 * 1024;

/**
 * 16,384 as the docs write it. Not `toLocaleString`: it loads ICU's locale data, 11 ms of every
 * function's cold start (the bench saw getPet's go from 1.08 to 1.23 times the baseline's).
 */
export const MAX_BODY_BYTES_AS_WRITTEN = String(MAX_BODY_BYTES).replace(/\B(?=(\d{3})+$)/g, ',');

/** What a larger body is answered, by the web ACL, the local server and a function alike. */
export const BODY_TOO_LARGE: ApiProblem = {
  status: 413,
  code: 'invalid_request',
  message: `The request body is larger than this API accepts (${MAX_BODY_BYTES_AS_WRITTEN} bytes).`,
};
