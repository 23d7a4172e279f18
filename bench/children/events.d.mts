import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';

export type BenchCase = 'listPets' | 'createPet' | 'createPetWithKey' | 'getPet' | 'invalid' | 'unauthorized' | 'authorize' | 'authorizeUnknown' | 'authorizeRefused';
export const REFUSED_ADDRESS: string;
export const BENCH_LIMITS: { perMinute: number; perDay: number };
export function lambdaContext(): Context;
export function eventFor(name: BenchCase, options?: { key?: string; petId?: number }): APIGatewayProxyEvent;
export function invoke(handler: (event: never, context: Context) => Promise<unknown>, event: unknown, context: Context): Promise<APIGatewayProxyResult>;
export const FUNCTION_OF: Record<BenchCase, 'listPets' | 'createPet' | 'getPet' | 'authorizer'>;
export const EXPECTED_STATUS: Record<BenchCase, number>;
export function percentile(sorted: readonly number[], p: number): number;
