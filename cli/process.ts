/**
 * `chunkd process CHEF FILE`: one file read by a chef, without a server. Prints the processed
 * document (text, structure, metadata; offsets in code points) as JSON, as POST /v1/process/CHEF
 * answers it. CHEF `auto` picks the chef for the file's extension, as an upload does.
 */
import { basename } from 'node:path';
import { chefFor, unsupportedFile } from '../kernel/chef/select.js';
import { discover } from '../kernel/discovery.js';
import { inline } from '../kernel/engine/index.js';
import type { Recipe } from '../kernel/engine/index.js';
import { exportPluginSettings } from '../service/plugin-settings.js';
import { runnerOf } from '../service/limits.js';
import { fail, readSettings, Usage } from './chunk.js';
import { readRegularFile } from './read-file.js';
import { envOf } from '../service/settings.js';

export const PROCESS_HELP = `Usage: chunkd process CHEF FILE

Read FILE with a chef (text, markdown, html, pdf, docx, table, or one from ${envOf('pluginsDir')}; auto:
the chef for the file's extension) and print the processed document as JSON: its text, and its
headings, tables, code blocks, images and pages as spans of it (offsets in code points).`;

export async function processCommand(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  try {
    if (args.includes('--help') || args.includes('-h')) {
      process.stdout.write(`${PROCESS_HELP}\n`);
      return 0;
    }
    const [chef, file, ...rest] = args;
    if (!chef || !file || rest.length) throw new Usage(`Name one chef and one file, e.g. chunkd process markdown README.md.\n${PROCESS_HELP}`);
    const settings = readSettings(env);
    exportPluginSettings(settings);
    const registry = await discover(settings.pluginsDir);
    const bytes = new Uint8Array(
      readRegularFile(
        file,
        settings.maxFileBytes,
        (size) =>
          new Usage(`${file} has ${size.toLocaleString('en')} bytes; the limit is ${settings.maxFileBytes.toLocaleString('en')} (${envOf('maxFileBytes')}).`),
      ),
    );
    const facts = { filename: basename(file) };
    const plugin = chef === 'auto' ? chefFor(registry, facts, bytes) : registry.get('chef', chef);
    if (!plugin) throw unsupportedFile(registry, facts);
    // The chef is a runner step, as on the server: its document bounded by the same limits (--max-output-bytes,
    // --max-structure-spans), in an extraction worker stopped at --max-extract-ms (CHUNKD_MAX_EXTRACT_MS).
    const recipe: Recipe = { steps: [{ plugin, config: plugin.validateConfig({}) }], unit: 'codepoint', returnType: 'chunks' };
    const [doc] = await runnerOf(inline, settings, true).answer(recipe, [{ file: bytes, filename: facts.filename }], { list: false });
    // The document's JSON object, with the chef's name first.
    process.stdout.write(`{"chef":${JSON.stringify(plugin.name)},`);
    process.stdout.write(doc!.subarray(1));
    process.stdout.write('\n');
    return 0;
  } catch (e) {
    return fail(e);
  }
}
