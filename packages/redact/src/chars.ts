// Character classes and small string tests every part of the redactor uses. Char-code tests instead of
// regexes: they run on every character the scanners step over.

export function isUpper(c: number): boolean {
  return c >= 65 && c <= 90;
}
export function isLower(c: number): boolean {
  return c >= 97 && c <= 122;
}
export function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

export function charTable(chars: string): Uint8Array {
  const t = new Uint8Array(128);
  for (let i = 0; i < chars.length; i++) t[chars.charCodeAt(i)] = 1;
  return t;
}

export function hasDigit(s: string): boolean {
  return /[0-9]/.test(s);
}
export function mixedCase(s: string): boolean {
  return /[a-z]/.test(s) && /[A-Z]/.test(s);
}
// Kebab-case names like "sk-learn-..." never mix upper, lower and digits; keys do.
export function keyLike(s: string): boolean {
  return hasDigit(s) && mixedCase(s);
}

export const PRINTABLE = /^[\x20-\x7e]+$/;

export function decodeB64(s: string, url: boolean): string {
  return Buffer.from(s, url ? "base64url" : "base64").toString("latin1");
}

/** The text of the line holding `pos`, up to `pos`. */
export function lineBefore(text: string, pos: number): string {
  const min = Math.max(0, pos - 500);
  let ls = pos;
  while (ls > min && text.charCodeAt(ls - 1) !== 10) ls--;
  return text.slice(ls, pos);
}

export function isB64UrlCode(c: number): boolean {
  return isUpper(c) || isLower(c) || isDigit(c) || c === 95 || c === 45;
}

export function isB64Code(c: number): boolean {
  return isUpper(c) || isLower(c) || isDigit(c) || c === 43 || c === 47;
}

/** Whether `text[i]` is the letter of a `\n` / `\r` / `\t` escape in JSON-encoded text. */
export function escapedLetterAt(text: string, i: number): boolean {
  const c = text.charCodeAt(i);
  return (c === 110 || c === 114 || c === 116) && text.charCodeAt(i - 1) === 92;
}

export function isKeyCode(c: number): boolean {
  return isUpper(c) || isLower(c) || isDigit(c) || c === 95 || c === 45 || c === 46;
}
export function isBlank(c: number): boolean {
  return c === 32 || c === 9;
}
export function isQuote(c: number): boolean {
  return c === 34 || c === 39 || c === 96;
}
