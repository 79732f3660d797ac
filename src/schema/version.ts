/** infx's version, recorded in every result and run manifest (the package.json version). */
export const INFX_VERSION = '0.1.0';
