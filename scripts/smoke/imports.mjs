// Copied into the temporary consumer project by check-packages.mjs and run there: imports
// every library entry point of the installed packages from a plain ESM script, the way a
// user's code does, and prints `{ [specifier]: { exports: [names], functions: [names] } }`
// as one JSON line. Any import that throws fails the run.
//
//   node imports.mjs <specifier> [<specifier> ...]
const result = {};
let failed = false;
for (const specifier of process.argv.slice(2)) {
  try {
    const module = await import(specifier);
    const names = Object.keys(module).sort();
    result[specifier] = {
      exports: names,
      // Classes and functions: check-packages looks for their definitions in dependents'
      // dist files to prove a sibling package was not bundled into them.
      functions: names.filter((name) => typeof module[name] === 'function'),
    };
  } catch (error) {
    failed = true;
    result[specifier] = { error: `${error.code ?? error.name}: ${error.message}` };
  }
}
process.stdout.write(`${JSON.stringify(result)}\n`);
process.exit(failed ? 1 : 0);
