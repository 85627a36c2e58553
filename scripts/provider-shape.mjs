// The shape every provider package has (a workspace package under packages/ with a `bin`), the
// shape packages/_template shows. `node scripts/provider-shape.mjs` checks them all (part of
// `pnpm test:packages`); scripts/test/provider-shape.test.ts runs it on broken copies of the
// template, and every provider's src/shape.test.ts on its own package.
//
// A provider:
// - exports `.` and `./testing`, `./config` (its settings schema for config files) and
//   `./metadata` (what it is, for the composed server: `ProviderMetadata` of @x/mcp-core);
// - its src/index.ts exports a `create…Provider` factory and `VERSION`;
// - its src/testing/index.ts is a pure barrel (re-exports only) exporting `createSandbox`;
// - its src/bin.ts only calls the core bin runner: imports, declarations, and one
//   `await runBin(…)` from @x/mcp-core; the provider itself only through a lazy `import()`;
// - is in the composed server's catalog when published (a dependency of apps/server/package.json,
//   listed in the generated apps/server/src/providers.generated.ts), and is not there when
//   private (the template).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const REQUIRED_EXPORTS = ['.', './config', './metadata', './testing'];
const RUNNER_MODULES = new Set(['@x/mcp-core', '@x/mcp-core/node']);
// What bin.ts may import statically: the runner, core's upstream helpers (auth commands), and
// the light modules --help needs. Tools and clients load only when the server starts.
const BIN_IMPORTS = new Set([...RUNNER_MODULES, '@x/mcp-core/upstream', './environment.js', './version.js']);

/** The provider packages below `root/packages`: folders whose package.json has a `bin`. */
export function providerDirs(root) {
  const base = join(root, 'packages');
  return readdirSync(base, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(base, entry.name, 'package.json')))
    .map((entry) => join(base, entry.name))
    .filter((dir) => readJson(join(dir, 'package.json')).bin !== undefined)
    .sort();
}

/** Every shape problem of the providers under `root`, each naming the package and the file. */
export function shapeProblems(root) {
  const catalogFile = join(root, 'apps/server/src/providers.generated.ts');
  const catalog = existsSync(catalogFile) ? readFileSync(catalogFile, 'utf8') : '';
  return providerDirs(root).flatMap((dir) =>
    providerProblems(dir, { catalog }).map((problem) => `${relative(root, dir)}: ${problem}`),
  );
}

/**
 * The shape problems of one provider package; `catalog` is the text of the catalog module, or
 * `undefined` to leave out the catalog rule.
 */
export function providerProblems(dir, { catalog } = {}) {
  const problems = [];
  const manifest = readJson(join(dir, 'package.json'));
  const name = manifest.name;

  const exported = Object.keys(manifest.exports ?? {});
  for (const entry of REQUIRED_EXPORTS) {
    if (!exported.includes(entry)) problems.push(`package.json exports no "${entry}"`);
  }

  const index = parse(dir, 'src/index.ts', problems);
  if (index) {
    const names = exportedNames(index);
    if (![...names].some((exportName) => /^create\w*Provider$/.test(exportName)))
      problems.push('src/index.ts exports no create…Provider factory');
    if (!names.has('VERSION')) problems.push('src/index.ts does not export VERSION');
  }

  const testing = parse(dir, 'src/testing/index.ts', problems);
  if (testing) {
    for (const statement of testing.statements) {
      if (!(ts.isExportDeclaration(statement) && statement.moduleSpecifier)) {
        problems.push(
          `src/testing/index.ts is not a pure barrel: line ${line(testing, statement)} is not a re-export`,
        );
      }
    }
    if (!exportedNames(testing).has('createSandbox'))
      problems.push('src/testing/index.ts (./testing) does not export createSandbox');
  }

  const bin = parse(dir, 'src/bin.ts', problems);
  if (bin) problems.push(...binProblems(bin));

  // Without a catalog text (a package's own shape test), the catalog rule is left to the root check.
  if (catalog === undefined) return problems;
  const listed = catalog.includes(`'${name}'`) || catalog.includes(`'${name}/`);
  if (manifest.private && listed)
    problems.push(`private, but in the catalog (a dependency of apps/server/package.json)`);
  if (!manifest.private && !listed)
    problems.push(`not in the catalog (add it to apps/server/package.json's dependencies)`);
  return problems;
}

function binProblems(file) {
  const problems = [];
  const runners = [];
  let runnerImported = false;
  for (const statement of file.statements) {
    const at = `src/bin.ts line ${line(file, statement)}`;
    if (ts.isImportDeclaration(statement)) {
      const from = statement.moduleSpecifier.text;
      if (!BIN_IMPORTS.has(from))
        problems.push(
          `${at} imports ${from} (load the provider lazily, with import() inside the runner options)`,
        );
      const bindings = statement.importClause?.namedBindings;
      if (RUNNER_MODULES.has(from) && bindings && ts.isNamedImports(bindings)) {
        runnerImported ||= bindings.elements.some((element) => element.name.text === 'runBin');
      }
      continue;
    }
    if (
      ts.isFunctionDeclaration(statement) ||
      ts.isInterfaceDeclaration(statement) ||
      ts.isTypeAliasDeclaration(statement)
    )
      continue;
    if (ts.isVariableStatement(statement)) {
      const calls = statement.declarationList.declarations.filter(
        (declaration) => declaration.initializer && callsAtTopLevel(declaration.initializer),
      );
      if (calls.length > 0) problems.push(`${at} runs code besides the runner`);
      continue;
    }
    if (ts.isExpressionStatement(statement) && isRunBinCall(statement.expression)) {
      runners.push(statement);
      continue;
    }
    problems.push(`${at} runs code besides the runner`);
  }
  if (!runnerImported) problems.push('src/bin.ts does not import runBin from @x/mcp-core');
  if (runners.length !== 1)
    problems.push(`src/bin.ts calls the runner ${runners.length} times (once: await runBin({ … }))`);
  return problems;
}

function isRunBinCall(expression) {
  const call = ts.isAwaitExpression(expression) ? expression.expression : expression;
  return ts.isCallExpression(call) && ts.isIdentifier(call.expression) && call.expression.text === 'runBin';
}

/** Whether evaluating the expression calls something now (a function body only runs later). */
function callsAtTopLevel(node) {
  if (ts.isArrowFunction(node) || ts.isFunctionExpression(node)) return false;
  if (ts.isCallExpression(node) || ts.isNewExpression(node) || ts.isAwaitExpression(node)) return true;
  return ts.forEachChild(node, (child) => (callsAtTopLevel(child) ? true : undefined)) ?? false;
}

function exportedNames(file) {
  const names = new Set();
  for (const statement of file.statements) {
    if (
      ts.isExportDeclaration(statement) &&
      statement.exportClause &&
      ts.isNamedExports(statement.exportClause)
    ) {
      for (const element of statement.exportClause.elements) names.add(element.name.text);
    }
    const exportedHere = ts.canHaveModifiers(statement)
      ? ts.getModifiers(statement)?.some((modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword)
      : false;
    if (!exportedHere) continue;
    if (ts.isFunctionDeclaration(statement) || ts.isClassDeclaration(statement)) {
      if (statement.name) names.add(statement.name.text);
    }
    if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations) {
        if (ts.isIdentifier(declaration.name)) names.add(declaration.name.text);
      }
    }
  }
  return names;
}

function parse(dir, path, problems) {
  const file = join(dir, path);
  if (!existsSync(file)) {
    problems.push(`${path} is missing`);
    return undefined;
  }
  return ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
}

function line(file, node) {
  return file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1;
}

function readJson(file) {
  return JSON.parse(readFileSync(file, 'utf8'));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const dirs = providerDirs(root);
  const problems = shapeProblems(root);
  if (problems.length > 0) {
    console.error(
      `Provider shape: ${problems.length} problem(s)\n${problems.map((p) => `  ✗ ${p}`).join('\n')}`,
    );
    process.exit(1);
  }
  process.stdout.write(
    `Provider shape: ${dirs.length} packages (${dirs.map((dir) => relative(root, dir)).join(', ')}) ok\n`,
  );
}
