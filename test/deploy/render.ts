import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseAllDocuments } from 'yaml';

/** The repository root (this file runs from test/dist/deploy). */
export const ROOT = path.resolve(__dirname, '..', '..', '..');

export const OVERLAYS = ['dev', 'prod'] as const;

export type K8sObject = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [key: string]: any;
};

/** kustomize: $KUSTOMIZE, the copy .ci/kustomize.sh caches, or the one on PATH. */
export function kustomizeBinary(): string {
  if (process.env.KUSTOMIZE) return process.env.KUSTOMIZE;
  const cached = path.join(
    process.env.SWITCHYARD_CACHE ?? path.join(os.homedir(), '.cache', 'switchyard'),
    'bin',
    'kustomize',
  );
  return existsSync(cached) ? cached : 'kustomize';
}

const rendered = new Map<string, K8sObject[]>();

/** Every object `kustomize build k8s/<dir>` renders (cached per directory). */
export function render(dir: string): K8sObject[] {
  let objects = rendered.get(dir);
  if (!objects) {
    const text = execFileSync(kustomizeBinary(), ['build', path.join(ROOT, 'k8s', dir)], {
      encoding: 'utf8',
    });
    objects = parseAllDocuments(text)
      .map((doc) => doc.toJS() as K8sObject)
      .filter(Boolean);
    rendered.set(dir, objects);
  }
  return objects;
}

export function ofKind(objects: K8sObject[], kind: string): K8sObject[] {
  return objects.filter((o) => o.kind === kind);
}

export function named(objects: K8sObject[], kind: string, name: string): K8sObject {
  const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
  if (!found) throw new Error(`no ${kind} ${name}`);
  return found;
}

export function readText(relative: string): string {
  return readFileSync(path.join(ROOT, relative), 'utf8');
}

/** The kubernetes-models (or prometheus-operator models) module of an object's kind; undefined for Strimzi's. */
export function modelModuleOf(object: K8sObject): string | undefined {
  const [group, version] = object.apiVersion.includes('/')
    ? object.apiVersion.split('/')
    : ['', object.apiVersion];
  if (group === 'kafka.strimzi.io') return undefined;
  return group === 'monitoring.coreos.com'
    ? `@kubernetes-models/prometheus-operator/${group}/${version}/${object.kind}`
    : `kubernetes-models/${group ? `${group}/` : ''}${version}/${object.kind}`;
}
