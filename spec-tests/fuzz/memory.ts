// Memory bounds for the fuzzer: walks an engine's own object graph (not the peer's data
// it holds) and reports its largest table and the bytes its buffers keep.
//
// Tables are the Maps, Sets and the arrays inside the engine's own classes (queues, id
// tables); plain objects and arrays are peer data (params, results) and are not tables.
// Invariant: the walk visits each object once and never calls engine methods.

export interface Footprint {
  /** Every table over the bound given to footprint(), as "path: size". */
  over: string[];
  largestTable: number;
  largestPath: string;
  bufferBytes: number;
  bufferPath: string;
}

function isPlain(value: object): boolean {
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null || proto === Array.prototype;
}

export function footprint(root: object, bound = Infinity): Footprint {
  const result: Footprint = { over: [], largestTable: 0, largestPath: "", bufferBytes: 0, bufferPath: "" };
  const seen = new Set<object>();
  const visit = (value: unknown, path: string, depth: number, owner: boolean): void => {
    if (typeof value !== "object" || value === null || seen.has(value) || depth > 8) return;
    seen.add(value);
    if (ArrayBuffer.isView(value)) {
      // A view's whole backing buffer stays alive while the view does.
      const bytes = value.buffer.byteLength;
      if (bytes > result.bufferBytes) {
        result.bufferBytes = bytes;
        result.bufferPath = path;
      }
      return;
    }
    if (value instanceof Map || value instanceof Set) {
      if (value.size > bound) result.over.push(`${path}: ${value.size}`);
      if (value.size > result.largestTable) {
        result.largestTable = value.size;
        result.largestPath = path;
      }
      if (value instanceof Map) for (const v of value.values()) visit(v, `${path}[]`, depth + 1, false);
      return;
    }
    if (Array.isArray(value)) {
      if (owner && value.length > bound) result.over.push(`${path}: ${value.length}`);
      if (owner && value.length > result.largestTable) {
        result.largestTable = value.length;
        result.largestPath = path;
      }
      if (owner) for (let i = 0; i < value.length && i < 64; i++) visit(value[i], `${path}[]`, depth + 1, false);
      return;
    }
    if (isPlain(value)) return; // peer data held by reference
    for (const key of Object.keys(value)) visit((value as Record<string, unknown>)[key], `${path}.${key}`, depth + 1, true);
  };
  visit(root, "engine", 0, true);
  return result;
}
