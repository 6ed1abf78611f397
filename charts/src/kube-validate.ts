// Validates rendered objects offline against the Kubernetes and Prometheus Operator schemas shipped by kubernetes-models.
import { createRequire } from "node:module";
import { join } from "node:path";
import ts from "typescript";
import { repoRoot, type KubeObject } from "./chart.js";

const require = createRequire(import.meta.url);

/** The npm module holding the models of an apiVersion. */
function modelModule(apiVersion: string): string {
  if (apiVersion === "monitoring.coreos.com/v1")
    return "@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1";
  return `kubernetes-models/${apiVersion}`;
}

type ModelClass = new (data: unknown) => { validate(): void };

/**
 * Checks each object with the model's JSON-schema validator (required fields,
 * types, formats, enums). Returns one message per invalid object; an object
 * whose kind has no model is an error too.
 */
export function validateWithModels(objects: readonly KubeObject[]): string[] {
  const errors: string[] = [];
  for (const object of objects) {
    const label = `${object.kind}/${object.metadata.name}`;
    let Model: ModelClass | undefined;
    try {
      Model = (require(modelModule(object.apiVersion)) as Record<string, ModelClass | undefined>)[object.kind];
    } catch {
      Model = undefined;
    }
    if (Model === undefined) {
      errors.push(`${label}: no schema for ${object.apiVersion} ${object.kind}`);
      continue;
    }
    try {
      new Model(object).validate();
    } catch (error) {
      errors.push(`${label}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return errors;
}

/**
 * The JSON-schema validators of the models accept unknown fields, which is how
 * a misspelt key (readOnlyRootFileSystem) slips through. This check compiles
 * every object as a TypeScript object literal typed with the same models'
 * declarations, so the compiler's excess-property check rejects any field the
 * API does not define, at any depth.
 */
export function checkUnknownFields(objects: readonly KubeObject[]): string[] {
  const fileName = join(repoRoot, "charts", "__rendered_objects__.ts");
  const starts: number[] = [];
  let source = "";
  objects.forEach((object, index) => {
    const module = modelModule(object.apiVersion);
    starts.push(source.length);
    source += `import type { I${object.kind} as T${index} } from "${module}/${object.kind}";\nexport const o${index}: T${index} = ${JSON.stringify(object, null, 1)};\n`;
  });
  const options: ts.CompilerOptions = {
    noEmit: true,
    strict: true,
    skipLibCheck: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.readFile = (path) => (path === fileName ? source : readFile(path));
  host.fileExists = (path) => path === fileName || ts.sys.fileExists(path);
  host.getSourceFile = (path, languageVersion, onError, shouldCreate) =>
    path === fileName
      ? ts.createSourceFile(path, source, languageVersion, true)
      : getSourceFile(path, languageVersion, onError, shouldCreate);
  const program = ts.createProgram([fileName], options, host);
  const diagnostics = ts
    .getPreEmitDiagnostics(program)
    .filter((diagnostic) => diagnostic.file?.fileName === fileName || diagnostic.file === undefined);
  return diagnostics.map((diagnostic) => {
    const position = diagnostic.start ?? 0;
    let index = 0;
    while (index + 1 < starts.length && (starts[index + 1] ?? Infinity) <= position) index++;
    const object = objects[index];
    const label = object === undefined ? "?" : `${object.kind}/${object.metadata.name}`;
    return `${label}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, " ")}`;
  });
}
