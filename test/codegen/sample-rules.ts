/** Functions a sample schema of test/codegen/request-checks.test.ts runs: the generated checks name them by their exports. */
export const isNotReserved = (code: string): boolean => code !== 'root';
export const SAMPLE_RULES = [{ holds: (code: string) => !code.includes('x'), message: 'no x' }];
export const lengthOf = (text: string): number => text.length;
export const CODE_TEXT = /^[a-z]+$/;
export const orEmpty = (value: unknown): unknown => value ?? '';
export const halve = (text: string): number => Number(text) / 2;
