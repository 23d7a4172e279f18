import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import GithubSlugger from 'github-slugger';
import { marked, type Token } from 'marked';
import { describe, expect, it } from 'vitest';

/**
 * Every relative link and anchor of README.md and docs/ resolves: the file exists, and a
 * `#anchor` names a heading of that file as GitHub makes its ids. Every docs page is linked from
 * the README.
 */
const root = resolve(__dirname, '../..');
const PAGES = [
  'README.md',
  'functions/README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

function tokensOf(file: string, text = readFileSync(join(root, file), 'utf8')): Token[] {
  return marked.lexer(text);
}

function linksOf(tokens: Token[]): string[] {
  const hrefs: string[] = [];
  void marked.walkTokens(tokens, (token) => {
    if (token.type === 'link' || token.type === 'image') hrefs.push(token.href);
  });
  return hrefs;
}

const anchorCache = new Map<string, Set<string>>();
function anchorsOf(file: string): Set<string> {
  let anchors = anchorCache.get(file);
  if (anchors === undefined) {
    const slugger = new GithubSlugger();
    anchors = new Set();
    void marked.walkTokens(tokensOf(file), (token) => {
      if (token.type === 'heading') anchors?.add(slugger.slug(token.text.replace(/`/g, '')));
    });
    anchorCache.set(file, anchors);
  }
  return anchors;
}

function brokenLinks(page: string, text?: string): string[] {
  const broken: string[] = [];
  for (const href of linksOf(tokensOf(page, text))) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(href)) continue; // https:, mailto: …: not ours to check here
    const [path = '', anchor] = href.split('#');
    const target = path === '' ? page : relative(root, resolve(root, dirname(page), decodeURIComponent(path)));
    if (!existsSync(join(root, target))) {
      broken.push(`${href}: no such file`);
      continue;
    }
    if (
      anchor !== undefined &&
      (statSync(join(root, target)).isDirectory() || !target.endsWith('.md') || !anchorsOf(target).has(anchor))
    ) {
      broken.push(`${href}: no heading #${anchor} in ${target}`);
    }
  }
  return broken;
}

describe("the docs' links", () => {
  it.each(PAGES)('every relative link and anchor of %s resolves', (page) => {
    expect(brokenLinks(page)).toEqual([]);
  });

  it('the check is live: a missing file and a missing anchor are found, links in code are not links', () => {
    const page =
      'See [a](docs/nope.md), [b](#no-such-heading), [c](docs/api-behaviour.md#nope), [d](#quick-start), [e](docs/api-behaviour.md#safe-retries-of-creates-idempotency-key).\n\n```\n[f](missing.md)\n```\n';
    expect(brokenLinks('README.md', page)).toEqual([
      'docs/nope.md: no such file',
      '#no-such-heading: no heading #no-such-heading in README.md',
      'docs/api-behaviour.md#nope: no heading #nope in docs/api-behaviour.md',
    ]);
  });

  it('every docs page is linked from the README', () => {
    const linked = new Set(linksOf(tokensOf('README.md')).map((href) => href.split('#')[0]));
    expect(PAGES.filter((page) => page !== 'README.md' && !linked.has(page))).toEqual([]);
  });

  it('cite the contract as a page of the repository, never as files a reader cannot open', () => {
    for (const page of PAGES)
      expect([page, readFileSync(join(root, page), 'utf8')]).not.toEqual([
        page,
        expect.stringMatching(/pet-store-interface\.md|(?<![\w-])decisions\.md|\.\.\/shared\/spec/),
      ]);
    expect(linksOf(tokensOf('README.md'))).toContain('docs/interface-and-decisions.md');
  });

  it('the README stays a front door: under 150 lines', () => {
    expect(readFileSync(join(root, 'README.md'), 'utf8').split('\n').length).toBeLessThan(150);
  });
});
