/**
 * Types of the twitter-text files lib/domain/x-text-length.ts imports one by one (each a CommonJS
 * module whose export is the function or pattern itself); the functions' types are the package's.
 */
declare module 'twitter-text/dist/parseTweet.js' {
  import type { ParsedTweet, ParseTweetOptions } from 'twitter-text';
  export default function parseTweet(text: string, options?: ParseTweetOptions): ParsedTweet;
}

declare module 'twitter-text/dist/regexp/validGTLD.js' {
  const pattern: RegExp;
  export default pattern;
}

declare module 'twitter-text/dist/regexp/validCCTLD.js' {
  const pattern: RegExp;
  export default pattern;
}

declare module 'twitter-text/dist/regexp/validPunycode.js' {
  const pattern: RegExp;
  export default pattern;
}
