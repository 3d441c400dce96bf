declare const __LOOPX_VERSION__: string | undefined;

/** This loopx's version: package.json's, set by esbuild in every bundle; '0.0.0-dev' when run from source (tests). */
export const LOOPX_VERSION = typeof __LOOPX_VERSION__ === 'string' ? __LOOPX_VERSION__ : '0.0.0-dev';
