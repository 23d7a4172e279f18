import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The typed client's examples in the README and docs/ type-check as written: each ```ts block
 * that imports the client is compiled, as a file at the project's root, with the project's own
 * compiler options. An example and the generated types cannot drift apart.
 */
const root = resolve(__dirname, '../..');
const pages = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

function clientExamples(): { page: string; code: string }[] {
  const examples: { page: string; code: string }[] = [];
  for (const page of pages) {
    const text = readFileSync(join(root, page), 'utf8');
    for (const match of text.matchAll(/```ts\n([\s\S]*?)```/g)) {
      const code = match[1] as string;
      if (code.includes("from './client'")) examples.push({ page, code });
    }
  }
  return examples;
}

function typeErrors(code: string): string[] {
  const { config } = ts.readConfigFile(join(root, 'tsconfig.json'), ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(config, ts.sys, root);
  const fileName = join(root, '__docs_example__.ts');
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists, readFile } = host;
  host.fileExists = (name) => name === fileName || fileExists.call(host, name);
  host.readFile = (name) => (name === fileName ? code : readFile.call(host, name));
  host.getSourceFile = (name, language, ...rest) =>
    name === fileName
      ? ts.createSourceFile(name, code, language, true)
      : getSourceFile.call(host, name, language, ...rest);
  const program = ts.createProgram([fileName], { ...options, noEmit: true }, host);
  return ts
    .getPreEmitDiagnostics(program)
    .filter((diagnostic) => diagnostic.file?.fileName === fileName || diagnostic.file === undefined)
    .map((diagnostic) => `TS${diagnostic.code}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`);
}

describe('the client examples of the docs', () => {
  const examples = clientExamples();

  it('exist (the README shows the client)', () => {
    expect(examples.map((example) => example.page)).toContain('README.md');
  });

  it.each(examples.map((example, index) => [`${example.page} #${index + 1}`, example.code] as const))(
    '%s type-checks as written',
    (_, code) => {
      expect(typeErrors(code)).toEqual([]);
    },
    60_000,
  );

  it('the check is live: a create without a categoryId does not type-check', () => {
    const broken =
      "import { createPetStoreClient } from './client';\nconst store = createPetStoreClient({ baseUrl: 'http://localhost:3000/v1', apiKey: 'k' });\nawait store.api.POST('/pets', { body: { name: 'Rex' } });\n";
    expect(typeErrors(broken).join('\n')).toMatch(/TS2(322|345|741)/);
  }, 60_000);
});
