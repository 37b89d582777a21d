// The package's version, sent in X-Store-Commerce-Client (test/sdk/packaging.test.ts keeps it equal to package.json's).
export const SDK_VERSION = '0.1.0';
/** The header that names this client to the service (its CORS allows it), e.g. `sdk-js/0.1.0`. */
export const CLIENT_HEADER = 'X-Store-Commerce-Client';
