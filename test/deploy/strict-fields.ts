import * as path from 'node:path';
import ts from 'typescript';
import { ROOT, modelModuleOf, type K8sObject } from './render';

/**
 * Fields the Kubernetes types do not have. The JSON schemas of kubernetes-models accept unknown
 * fields (so does the API server, which drops them silently: a misspelt `securityContex` would
 * go unnoticed); TypeScript's excess-property check on the typed object literals catches them,
 * together with wrong types and missing required fields.
 */
export function unknownFieldProblems(objects: K8sObject[]): string[] {
  const fileName = path.join(ROOT, 'test', 'deploy', '__rendered_manifests__.mts');
  const lines: string[] = [];
  const lineOwner: K8sObject[] = [];
  objects.forEach((object, i) => {
    const module = modelModuleOf(object);
    if (!module) return;
    lines.push(`import type { I${object.kind} as T${i} } from '${module}';`);
    lineOwner.push(object);
  });
  const firstObjectLine = lines.length;
  objects.forEach((object, i) => {
    if (!modelModuleOf(object)) return;
    lines.push(`export const o${i}: T${i} = ${JSON.stringify(object)};`);
  });
  const source = lines.join('\n');
  const options: ts.CompilerOptions = {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.readFile = (name) => (name === fileName ? source : readFile(name));
  host.fileExists = (
    (exists) => (name: string) =>
      name === fileName || exists(name)
  )(host.fileExists.bind(host));
  host.getSourceFile = (name, language, ...rest) =>
    name === fileName
      ? ts.createSourceFile(name, source, language)
      : getSourceFile(name, language, ...rest);
  const program = ts.createProgram([fileName], options, host);
  const file = program.getSourceFile(fileName)!;
  const typedObjects = objects.filter((object) => modelModuleOf(object));
  return [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)].map(
    (diagnostic) => {
      const line =
        diagnostic.start === undefined
          ? -1
          : file.getLineAndCharacterOfPosition(diagnostic.start).line;
      const object =
        line < firstObjectLine ? lineOwner[line] : typedObjects[line - firstObjectLine];
      const where = object ? `${object.kind}/${object.metadata.name}` : 'manifests';
      return `${where}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ')}`;
    },
  );
}
