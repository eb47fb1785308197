// The two Web text codecs the core relies on, declared here because the core compiles
// against ECMAScript libraries only (no DOM, no Node types). Every runtime we target
// (browsers, Node, Deno, Bun, Workers) provides both globally. Only the members the core
// calls are declared, so a use of anything else fails the build.

interface TextDecoderOptions {
  fatal?: boolean;
  ignoreBOM?: boolean;
}

interface TextDecoder {
  readonly encoding: string;
  readonly fatal: boolean;
  decode(input?: Uint8Array, options?: { stream?: boolean }): string;
}

declare var TextDecoder: {
  prototype: TextDecoder;
  new (label?: string, options?: TextDecoderOptions): TextDecoder;
};

interface TextEncoderEncodeIntoResult {
  read: number;
  written: number;
}

interface TextEncoder {
  readonly encoding: string;
  encode(input?: string): Uint8Array;
  encodeInto(source: string, destination: Uint8Array): TextEncoderEncodeIntoResult;
}

declare var TextEncoder: {
  prototype: TextEncoder;
  new (): TextEncoder;
};
