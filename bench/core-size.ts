// What an embedder ships of the core: `import { Engine }` bundled the way an app bundles it
// (bench/bundle-size.ts's measureBundle: esbuild, ESM, minified, gzip -9), the vendored file
// (every export of `mcp-engine`, licence header included: the file spec-tests/embed/vendor.test.ts
// holds to its budget), and the SDKs' protocol layers as baselines built in the same run. Then
// where the bytes are: the core's largest modules, and the share of the modules only the
// 2026-07-28 era needs (ERA_ONLY_MODULES of bundle-size.ts: its rules and its server side, in the
// core): an upper bound on what a build for the session era alone, or for the client alone, could
// leave out. The Engine takes its role and versions at run time, so today a
// bundler keeps both roles and both eras.
//
//   npm run bench:core            (after `npm run build`)

import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { vendorJs } from "../spec-tests/tools/vendor.js";
import { ERA_ONLY_MODULES, ROOT, largestModules, measureBundle, type BundleEntry } from "./bundle-size.js";

const CORE = JSON.stringify(resolve(ROOT, "dist/package/index.js"));

export const ENGINE: BundleEntry = { name: "Engine", source: `import { Engine } from ${CORE};\nexport { Engine };` };
const SDK_V1_PROTOCOL: BundleEntry = {
  name: "SDK v1 Protocol",
  source: `import { Protocol } from "@modelcontextprotocol/sdk/shared/protocol.js";\nexport { Protocol };`,
};
const SDK_V2_PROTOCOL: BundleEntry = {
  name: "SDK v2 Protocol",
  source: `import { Protocol } from "@modelcontextprotocol/server";\nexport { Protocol };`,
};

const kb = (bytes: number): string => `${(bytes / 1024).toFixed(2)} KB`;

function main(): void {
  const engine = measureBundle(ENGINE);
  const vendored = gzipSync(vendorJs({ minify: true }), { level: 9 }).byteLength;
  console.log("core sizes (esbuild --bundle --minify, ESM, gzip -9)");
  console.log(`  Engine                     ${kb(engine.gzip).padStart(9)} gzip (${kb(engine.minified)} minified)`);
  console.log(`  vendored core (all exports) ${kb(vendored).padStart(8)} gzip (target 25 KB)`);
  for (const baseline of [SDK_V1_PROTOCOL, SDK_V2_PROTOCOL]) {
    const size = measureBundle(baseline);
    console.log(`  ${baseline.name.padEnd(26)} ${kb(size.gzip).padStart(9)} gzip, Engine / it: ${(engine.gzip / size.gzip).toFixed(2)}`);
  }
  const modules = largestModules(measureBundle(ENGINE, "modules"), 100);
  const total = modules.reduce((sum, m) => sum + m.bytes, 0);
  const oneSide = modules.filter((m) => ERA_ONLY_MODULES.includes(m.path)).reduce((sum, m) => sum + m.bytes, 0);
  console.log(
    `\nmodules of the 2026-07-28 era's rules and server (at most what one era or the client alone could drop): ${oneSide} of ${total} minified bytes (${((100 * oneSide) / total).toFixed(1)} %)`,
  );
  console.log("\nEngine: largest modules (minified bytes)");
  for (const { path, bytes } of modules.slice(0, 20)) console.log(`  ${String(bytes).padStart(7)}  ${path}`);
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
