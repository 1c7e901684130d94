import { expect } from 'chai';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { ROOT } from './render';

const SKIPPED_DIRS = new Set(['node_modules', 'dist', '.git', '.run', '.cache', 'coverage']);

/** Every Markdown file of the repository (not dependencies or build output). */
function markdownFiles(dir = ROOT): string[] {
  const found: string[] = [];
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) {
      if (!SKIPPED_DIRS.has(name)) found.push(...markdownFiles(full));
    } else if (name.endsWith('.md')) {
      found.push(full);
    }
  }
  return found;
}

/** The text outside fenced code blocks, where a `#` line is a shell comment, not a heading. */
function proseLines(text: string): string[] {
  const lines: string[] = [];
  let fenced = false;
  for (const line of text.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    else if (!fenced) lines.push(line);
  }
  return lines;
}

/** The anchors GitHub gives a file's headings (lower case, punctuation dropped, spaces as '-'). */
function anchors(file: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const line of proseLines(readFileSync(file, 'utf8'))) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const slug = heading[1]
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    result.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return result;
}

/** Relative link targets of a file's prose, as written. */
function relativeLinks(file: string): string[] {
  const targets: string[] = [];
  const link = /!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g;
  for (const line of proseLines(readFileSync(file, 'utf8'))) {
    // A link's text may be code; a code span is never a link of its own.
    const prose = line.replace(/(?<!\[)`[^`]*`(?!\])/g, '');
    for (const match of prose.matchAll(link)) {
      const target = match[1];
      if (!/^[a-z][a-z0-9+.-]*:/i.test(target) && !target.startsWith('//')) targets.push(target);
    }
  }
  return targets;
}

describe('documentation', () => {
  const files = markdownFiles();

  it('finds the README and the docs folder', () => {
    const names = files.map((file) => path.relative(ROOT, file));
    expect(names).to.include('README.md');
    expect(names.filter((name) => name.startsWith(`docs${path.sep}`))).to.not.be.empty;
  });

  it('every relative link of the README and the docs resolves, anchors included', () => {
    const broken: string[] = [];
    for (const file of files) {
      for (const target of relativeLinks(file)) {
        const [linkPath, anchor] = target.split('#', 2);
        const resolved = linkPath ? path.resolve(path.dirname(file), decodeURI(linkPath)) : file;
        const where = `${path.relative(ROOT, file)} -> ${target}`;
        if (!resolved.startsWith(ROOT) || !existsSync(resolved)) {
          broken.push(`${where}: no such file`);
        } else if (anchor && resolved.endsWith('.md') && !anchors(resolved).has(anchor)) {
          broken.push(`${where}: no such heading`);
        }
      }
    }
    expect(broken).to.deep.equal([]);
  });

  it("the README's test command is the one CI runs", () => {
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const command = /^(npm (?:run )?test\S*)\s.*#/m.exec(readme);
    expect(command, 'a test command at the top of README.md').to.not.equal(null);
    const ciSteps = readFileSync(path.join(ROOT, '.ci', 'run'), 'utf8')
      .split('\n')
      .filter((line) => !line.trimStart().startsWith('#'));
    const runs = ciSteps.some((line) =>
      new RegExp(`(^|[\\s;&|(])${command![1]}(\\s|$)`).test(line),
    );
    expect(runs, `.ci/run runs \`${command![1]}\``).to.equal(true);
  });

  it('the README stays a short guide (at most 300 lines)', () => {
    const lines = readFileSync(path.join(ROOT, 'README.md'), 'utf8').split('\n').length;
    expect(lines).to.be.at.most(300);
  });
});
