/**
 * Where a user catalog is looked for (config/user-catalog.ts reads it): in a module of its own, so that
 * the CLI can say so in its help and tell whether there is one to load without loading YAML or schemas.
 */
export const USER_CATALOG_DEFAULT = '.infx/catalog.yaml';
export const USER_CATALOG_ENV = 'INFX_CATALOG';
