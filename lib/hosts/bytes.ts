// Byte helpers the Node hosts share (the stdio writer, the Redis protocol encoder; the tests use them too).
//
// Invariant: the inputs are read, never kept or changed; the result is a new buffer.

/** The parts one after the other, in one new buffer. */
export function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  let total = 0;
  for (const part of parts) total += part.length;
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const part of parts) {
    bytes.set(part, at);
    at += part.length;
  }
  return bytes;
}
