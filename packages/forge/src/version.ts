/** The package version, sent in the User-Agent. Kept in step with package.json by the release. */
export const VERSION = '0.0.0';
