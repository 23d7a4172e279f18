import { readFileSync, writeFileSync } from 'node:fs';

/**
 * Replaces what a page holds between two marker comments with a generated text (the bench's
 * tables in docs/scale-and-cost.md); a page without the markers is an error, not a silent skip.
 */
export function writeBetweenMarkers(page: string, start: string, end: string, text: string): void {
  const content = readFileSync(page, 'utf8');
  const from = content.indexOf(start);
  const to = content.indexOf(end);
  if (from === -1 || to < from) throw new Error(`${page} has no "${start}" ... "${end}" markers`);
  writeFileSync(page, `${content.slice(0, from + start.length)}\n${text}${content.slice(to)}`);
}
