import type { APIGatewayProxyEvent, Context } from 'aws-lambda';

export type BenchCase = 'listPets' | 'createPet' | 'getPet' | 'invalid' | 'unauthorized';
export function lambdaContext(): Context;
export function eventFor(name: BenchCase, options?: { key?: string; petId?: number }): APIGatewayProxyEvent;
export const FUNCTION_OF: Record<BenchCase, 'listPets' | 'createPet' | 'getPet'>;
export const EXPECTED_STATUS: Record<BenchCase, number>;
export function percentile(sorted: readonly number[], p: number): number;
