// Copied into the temporary consumer project by check-packages.mjs and run there: imports
// every library entry point of the installed packages from a plain ESM script, the way a
// user's code does, and prints `{ [specifier]: { exports, functions, classes } }` (names)
// as one JSON line. Any import that throws fails the run.
//
//   node imports.mjs <specifier> [<specifier> ...]
const result = {};
let failed = false;
for (const specifier of process.argv.slice(2)) {
  try {
    const module = await import(specifier);
    const names = Object.keys(module).sort();
    const isFunction = (name) => typeof module[name] === 'function';
    result[specifier] = {
      exports: names,
      functions: names.filter(isFunction),
      // check-packages looks for these class definitions in dependents' dist files: a bundled
      // copy of a sibling's classes breaks `instanceof` across packages.
      classes: names.filter(
        (name) => isFunction(name) && /^class\b/.test(Function.prototype.toString.call(module[name])),
      ),
    };
  } catch (error) {
    failed = true;
    result[specifier] = { error: `${error.code ?? error.name}: ${error.message}` };
  }
}
process.stdout.write(`${JSON.stringify(result)}\n`);
process.exit(failed ? 1 : 0);
