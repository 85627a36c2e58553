import packageJson from '../package.json' with { type: 'json' };

/** The package version, from package.json at build time; sent in the User-Agent. */
export const VERSION: string = packageJson.version;
