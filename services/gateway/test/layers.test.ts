import { expect } from 'chai';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

/**
 * The gateway's layers, top to bottom (docs/architecture.md): a file imports from its own layer or
 * a lower one, never a higher one. A new folder or top-level file has to be placed here.
 */
const LAYERS = [
  ['index.ts', 'public.ts', 'cli/'],
  ['server.ts'],
  ['app.ts'],
  ['routing.ts', 'openapi.ts', 'console/'],
  ['routes/', 'schemas/'],
  ['cache/', 'metering/', 'streaming/', 'events/', 'idempotency/'],
  ['accounts/', 'middleware/'],
  ['read-models/'],
  ['auth/'],
  ['route-io.ts'],
  ['store/', 'config.ts', 'clients/'],
];

// Tests run from dist/test; the sources are the package's src/.
const SRC = resolve(__dirname, '..', '..', 'src');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The top-level folder ('routes/') or file ('app.ts') of src a file is in. */
function unitOf(file: string): string {
  const parts = relative(SRC, file).split(sep);
  return parts.length > 1 ? `${parts[0]}/` : parts[0];
}

/** The files of src a file imports (relative imports, static and dynamic, re-exports included). */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers = [
    ...text.matchAll(/\bfrom\s+['"](\.[^'"]*)['"]/g),
    ...text.matchAll(/\bimport\(\s*['"](\.[^'"]*)['"]\s*\)/g),
  ].map((match) => match[1]);
  return specifiers.map((specifier) => {
    const base = resolve(dirname(file), specifier);
    const found = [`${base}.ts`, `${base}.tsx`, join(base, 'index.ts')].find(
      (candidate) => existsSync(candidate) && statSync(candidate).isFile(),
    );
    if (!found) throw new Error(`${relative(SRC, file)}: cannot resolve ${specifier}`);
    return found;
  });
}

describe('gateway: imports only run down', () => {
  const files = sources(SRC);
  const layerOf = new Map(LAYERS.flatMap((units, layer) => units.map((u) => [u, layer] as const)));
  const edges = files.flatMap((file) =>
    importsOf(file).map((target) => ({ from: unitOf(file), to: unitOf(target), file, target })),
  );

  it('places every top-level folder and file of src in a layer', () => {
    const units = [...new Set(files.map(unitOf))].sort();
    expect(units.filter((unit) => !layerOf.has(unit))).to.deep.equal([]);
    expect(edges.length).to.be.greaterThan(100);
  });

  it('has no import from a lower layer to a higher one', () => {
    const upward = edges
      .filter((e) => layerOf.get(e.to)! < layerOf.get(e.from)!)
      .map((e) => `${relative(SRC, e.file)} -> ${relative(SRC, e.target)}`);
    expect(upward).to.deep.equal([]);
  });

  it('has no two folders of one layer importing each other', () => {
    const pairs = new Set(edges.filter((e) => e.from !== e.to).map((e) => `${e.from} ${e.to}`));
    const both = [...pairs].filter((pair) => {
      const [from, to] = pair.split(' ');
      return from < to && pairs.has(`${to} ${from}`);
    });
    expect(both).to.deep.equal([]);
  });
});
