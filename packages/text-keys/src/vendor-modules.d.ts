// The CommonJS lines of these libraries ship no type declarations.
declare module 'any-ascii' {
  /** Transliterates a Unicode string into ASCII. */
  export default function anyAscii(value: string): string;
}

declare module 'double-metaphone' {
  /** Primary and secondary Double Metaphone codes of a word. */
  export default function doubleMetaphone(value: string): [string, string];
}
