import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generatedFiles } from './generated-files';

/**
 * `npm run generate`: writes what follows from the operations' declarations
 * (functions/<operationId>/operation.ts): the registry of operations, the functions' route table,
 * each operation's request checks (codegen/request-checks.ts), then the release check's probes
 * (codegen/release-probes.ts), the interface description and the client's types
 * (openapi/generate.ts), which read the registry just written.
 */
const root = fileURLToPath(new URL('..', import.meta.url));

function write(path: string, contents: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, contents);
  process.stdout.write(`wrote ${relative(root, path)}\n`);
}

for (const [path, contents] of await generatedFiles(root)) write(join(root, path), contents);
// Imported only now: the release check's probes and the document read the registry written above.
const [probesPath, probesText] = await (await import('./release-probes')).releaseProbesFile();
write(join(root, probesPath), probesText);
const openapi = await import('../openapi/generate');
for (const [path, contents] of Object.entries(await openapi.generatedFiles())) write(path, contents);
