/** The provider packages below `root/packages`: folders whose package.json has a `bin`. */
export function providerDirs(root: string): string[];
/** Every shape problem of the providers under `root`, each naming the package and the file. */
export function shapeProblems(root: string): string[];
/**
 * The shape problems of one provider package; `catalog` is the text of the catalog module, or
 * `undefined` to leave out the catalog rule.
 */
export function providerProblems(dir: string, options?: { catalog?: string }): string[];
