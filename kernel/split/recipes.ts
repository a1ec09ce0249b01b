/**
 * Recipes: the levels of rules the recursive chunker (and the overlap refinery's recursive mode)
 * cut with. A recipe is a JSON file in Chonkie's recipe format, so Chonkie's own recipe files load
 * unchanged. Recipes ship in ./recipes (read from disk, never downloaded); users add or override
 * them with files in the directory the operator names (--recipes-dir; kernel/host.ts).
 *
 * File names: `<name>_<lang>.json` holds rules for one language (Chonkie's naming);
 * `<name>.json` holds rules for every language (source code).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import Type, { type Static } from '#typebox';
import { settingPair } from '../caps.js';
import { configError } from '../errors.js';
import { host, settingOf } from '../host.js';
import { assetDir } from '../paths.js';
import { unknownNameMessage } from '../suggest.js';
import { compileValidator } from '../validation.js';

export const RecipeLevel = Type.Object(
  {
    delimiters: Type.Optional(
      Type.Union([Type.String({ minLength: 1 }), Type.Array(Type.String({ minLength: 1 })), Type.Null()], {
        description: 'Where this level cuts: a string or a list of strings (earlier-listed wins at one position).',
      }),
    ),
    whitespace: Type.Optional(Type.Boolean({ description: 'Cut after every space (instead of delimiters).' })),
    include_delim: Type.Optional(
      Type.Union([Type.Literal('prev'), Type.Literal('next'), Type.Null()], {
        description: "Attach the delimiter to the piece before ('prev', also for null: text is never dropped) or after ('next').",
      }),
    ),
  },
  { description: 'One level: delimiters, or whitespace, or neither (cut by tokens).' },
);

export const RecipeFile = Type.Object({
  recipe: Type.Object({
    name: Type.Optional(Type.String()),
    lang: Type.Optional(Type.String()),
    recursive_rules: Type.Object({ levels: Type.Array(RecipeLevel, { minItems: 1 }) }),
  }),
});
export type RecipeFile = Static<typeof RecipeFile>;

/** A level ready to cut with: delimiters (whitespace is the delimiter ' '), or null for the token level. */
export type Rule = { readonly delimiters: readonly string[]; readonly includeDelim: 'prev' | 'next' } | null;

export interface Recipe {
  readonly name: string;
  readonly lang: string;
  /** The levels, in order; the last is always the token level (null), so every piece can be made to fit. */
  readonly rules: readonly Rule[];
}

export const BUILTIN_RECIPES_DIR = assetDir(import.meta.url, 'recipes');
const checkFile = compileValidator<RecipeFile>(RecipeFile);
const ANY_LANG = '';

/** The folders searched, the user's first: a user recipe overrides a shipped one of the same name. */
function recipeDirs(): string[] {
  const user = host().recipesDir;
  return user ? [resolve(user), BUILTIN_RECIPES_DIR] : [BUILTIN_RECIPES_DIR];
}

/** Every recipe name with the languages it has ('' = every language), from the file names. */
export function listRecipes(): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const dir of recipeDirs()) {
    if (!existsSync(dir))
      throw configError(`The recipes directory '${dir}' (${settingPair(settingOf('recipes-dir'))}) does not exist: create it or fix the setting.`);
    for (const file of readdirSync(dir)) {
      const m = /^([a-z0-9][a-z0-9-]*)(?:_([a-z]{2,3}(?:-[a-z0-9]+)?))?\.json$/i.exec(file);
      if (!m) continue;
      const langs = out.get(m[1]!) ?? new Set<string>();
      langs.add(m[2] ?? ANY_LANG);
      out.set(m[1]!, langs);
    }
  }
  return out;
}

/** Every language some recipe has rules for. */
export function knownLanguages(recipes = listRecipes()): string[] {
  return [...new Set([...recipes.values()].flatMap((l) => [...l]).filter((l) => l !== ANY_LANG))].sort();
}

const cache = new Map<string, Recipe>();

/**
 * The rules of a recipe for a language, validated and cached (files are read once per folder set).
 * An unknown recipe or language is a 400 that lists what exists.
 */
export function loadRecipe(name: string, lang: string): Recipe {
  const dirs = recipeDirs();
  const key = JSON.stringify([dirs, name, lang]);
  let recipe = cache.get(key);
  if (!recipe) {
    recipe = readRecipe(dirs, name, lang);
    cache.set(key, recipe);
  }
  return recipe;
}

function readRecipe(dirs: string[], name: string, lang: string): Recipe {
  const recipes = listRecipes();
  const langs = recipes.get(name);
  if (!langs) throw configError(unknownNameMessage('recipe', name, [...recipes.keys()].sort()));
  const known = knownLanguages(recipes);
  if (!known.includes(lang)) throw configError(unknownNameMessage('lang', lang, known));
  const files = [`${name}_${lang}.json`, `${name}.json`];
  for (const dir of dirs) {
    for (const file of files) {
      const path = join(dir, file);
      if (existsSync(path)) return Object.freeze({ name, lang, rules: Object.freeze(toRules(parseFile(path))) });
    }
  }
  throw configError(`The recipe '${name}' has no rules for lang '${lang}'. It has: ${[...langs].sort().join(', ')}.`);
}

function parseFile(path: string): RecipeFile {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw configError(`The recipe file ${path} is not valid JSON: ${(e as Error).message}`);
  }
  try {
    return checkFile(json, ['recipe file']);
  } catch (e) {
    throw configError(
      `The recipe file ${path} does not follow the recipe format ({"recipe": {"recursive_rules": {"levels": [...]}}}): ${(e as Error).message}`,
    );
  }
}

/** Chonkie's levels as rules: whitespace cuts after spaces; a level with neither cuts by tokens and ends the recipe. */
export function toRules(file: RecipeFile): Rule[] {
  const rules: Rule[] = [];
  for (const level of file.recipe.recursive_rules.levels) {
    const delimiters = typeof level.delimiters === 'string' ? [level.delimiters] : (level.delimiters ?? []);
    if (delimiters.length > 0 && level.whitespace)
      throw configError('A recipe level cannot cut both at delimiters and at whitespace: split it into two levels.');
    // Chonkie splits a whitespace level at single spaces with the level's include_delim (prev by default).
    if (level.whitespace)
      rules.push(Object.freeze({ delimiters: Object.freeze([' ']), includeDelim: level.include_delim === 'next' ? ('next' as const) : ('prev' as const) }));
    else if (delimiters.length > 0)
      rules.push(
        Object.freeze({ delimiters: Object.freeze([...delimiters]), includeDelim: level.include_delim === 'next' ? ('next' as const) : ('prev' as const) }),
      );
    else break; // the token level: nothing after it could apply
  }
  rules.push(null);
  return rules;
}
