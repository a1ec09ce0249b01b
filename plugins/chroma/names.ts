/**
 * Chroma takes collection names of 3 to 512 characters that end with a letter or digit; a chunkd
 * collection name may be one character long or end with - or _. Such a name gets the suffix `.c`:
 * a chunkd name never holds a `.`, so no two chunkd names map to one Chroma name, and a name Chroma
 * takes as it is stays as it is (what a user browsing Chroma sees).
 */
const CHROMA_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{1,510}[A-Za-z0-9]$/;
export const SUFFIX = '.c';

export const chromaName = (collection: string): string => (CHROMA_NAME.test(collection) ? collection : `${collection}${SUFFIX}`);
