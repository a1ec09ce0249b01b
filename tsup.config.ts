import { defineConfig } from 'tsup';
import { bundlePlayground } from './playground/build.js';

// Transpile file by file (no bundling) so dist/ mirrors the source tree: plugin folders stay
// discoverable and each plugin's load() keeps importing its implementation lazily.
export default defineConfig({
  entry: ['kernel/**/*.ts', 'plugins/**/*.ts', 'service/**/*.ts', 'server/**/*.ts', 'cli/**/*.ts', 'wire/**/*.ts', '!**/*.test.ts'],
  outDir: 'dist',
  format: ['esm'],
  target: 'node20',
  platform: 'node',
  bundle: false,
  clean: true,
  sourcemap: true,
  dts: false,
  // The playground page is one browser bundle (playground/build.ts), written beside the server.
  onSuccess: async () => void (await bundlePlayground('dist/playground')),
});
