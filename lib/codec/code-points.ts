// Small text helpers shared by the peer layer's validators.

/** The number of Unicode code points in `s` (a surrogate pair counts once; a lone surrogate counts as one). */
export function codePointLength(s: string): number {
  let count = s.length;
  for (let i = 0; i < s.length - 1; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const low = s.charCodeAt(i + 1);
      if (low >= 0xdc00 && low <= 0xdfff) {
        count--;
        i++;
      }
    }
  }
  return count;
}
