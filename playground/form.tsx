import type { JsonSchema } from './api.js';

/** A field's raw value as the form holds it: text as typed, or a checkbox state. */
export type Raw = Record<string, string | boolean>;

type Kind = 'boolean' | 'integer' | 'number' | 'select' | 'string' | 'json';

const choices = (s: JsonSchema): unknown[] | undefined =>
  s.enum ?? (s.anyOf?.length && s.anyOf.every((a) => 'const' in a) ? s.anyOf.map((a) => a.const) : undefined);

/** How a JSON Schema field is edited; anything the form has no widget for is edited as JSON. */
export function kindOf(s: JsonSchema): Kind {
  if (choices(s)) return 'select';
  if (s.type === 'boolean') return 'boolean';
  if (s.type === 'integer') return 'integer';
  if (s.type === 'number' || (s.anyOf?.length && s.anyOf.every((a) => a.type === 'number' || a.type === 'integer'))) return 'number';
  if (s.type === 'string') return 'string';
  return 'json';
}

const rawOf = (kind: Kind, value: unknown): string | boolean => {
  if (kind === 'boolean') return value === true;
  if (kind === 'select' || kind === 'json') return value === undefined ? '' : JSON.stringify(value);
  return value === undefined || value === null ? '' : String(value);
};

/** The form's starting values: every field's default. */
export function initialRaw(schema: JsonSchema): Raw {
  return Object.fromEntries(Object.entries(schema.properties ?? {}).map(([name, s]) => [name, rawOf(kindOf(s), s.default)]));
}

/** The form's values as a stored config holds them (the server fills in defaults again). */
export function rawFromConfig(schema: JsonSchema, config: Record<string, unknown>): Raw {
  const raw = initialRaw(schema);
  for (const [name, s] of Object.entries(schema.properties ?? {})) if (name in config) raw[name] = rawOf(kindOf(s), config[name]);
  return raw;
}

/**
 * The config to send, and the fields that cannot be read (a number that is not one, broken JSON):
 * those are reported at the field here instead of being sent for a vaguer 422.
 */
export function configOf(schema: JsonSchema, raw: Raw): { config: Record<string, unknown>; errors: Record<string, string> } {
  const config: Record<string, unknown> = {};
  const errors: Record<string, string> = {};
  for (const [name, s] of Object.entries(schema.properties ?? {})) {
    const value = raw[name];
    const kind = kindOf(s);
    if (kind === 'boolean') config[name] = value === true;
    else if (typeof value !== 'string' || value === '')
      continue; // empty: the server's default
    else if (kind === 'integer' || kind === 'number') {
      const n = Number(value);
      if (Number.isFinite(n)) config[name] = n;
      else errors[name] = `${name} must be a number.`;
    } else if (kind === 'string') config[name] = value;
    else {
      try {
        config[name] = JSON.parse(value);
      } catch {
        errors[name] = `${name} must be JSON (a list is written ["a", "b"], a string "a").`;
      }
    }
  }
  return { config, errors };
}

interface FormProps {
  /** Unique per form, so every input has its own id and label. */
  prefix: string;
  schema: JsonSchema;
  raw: Raw;
  errors: Record<string, string>;
  onChange(raw: Raw): void;
}

/** Every field of a plugin's config schema, with its default and description: no plugin is special-cased. */
export function ConfigForm({ prefix, schema, raw, errors, onChange }: FormProps) {
  const fields = Object.entries(schema.properties ?? {});
  if (!fields.length) return <p class="muted">No settings.</p>;
  return (
    <div class="fields">
      {fields.map(([name, s]) => (
        <Field
          key={name}
          id={`${prefix}-${name}`}
          name={name}
          schema={s}
          value={raw[name] ?? ''}
          error={errors[name]}
          onInput={(v) => onChange({ ...raw, [name]: v })}
        />
      ))}
    </div>
  );
}

function Field({
  id,
  name,
  schema,
  value,
  error,
  onInput,
}: {
  id: string;
  name: string;
  schema: JsonSchema;
  value: string | boolean;
  error?: string;
  onInput(v: string | boolean): void;
}) {
  const kind = kindOf(schema);
  const described = [`${id}-help`, error ? `${id}-error` : ''].filter(Boolean).join(' ');
  const common = { id, name, 'aria-describedby': described, 'aria-invalid': error ? true : undefined };
  const text = (e: Event) => onInput((e.currentTarget as HTMLInputElement).value);
  const def = schema.default === undefined ? '' : ` (default ${JSON.stringify(schema.default)})`;
  let control;
  if (kind === 'boolean')
    control = <input type="checkbox" {...common} checked={value === true} onChange={(e) => onInput((e.currentTarget as HTMLInputElement).checked)} />;
  else if (kind === 'select')
    control = (
      <select {...common} value={String(value)} onChange={text}>
        {choices(schema)!.map((c) => (
          <option key={String(c)} value={JSON.stringify(c)}>
            {String(c)}
          </option>
        ))}
      </select>
    );
  else if (kind === 'integer' || kind === 'number')
    control = (
      <input
        type="number"
        inputMode="decimal"
        step={kind === 'integer' ? 1 : 'any'}
        min={schema.minimum}
        max={schema.maximum}
        {...common}
        value={String(value)}
        onInput={text}
      />
    );
  else if (kind === 'string' && !/[\n\t]/.test(String(value)) && !/[\n\t]/.test(String(schema.default ?? '')))
    control = <input type="text" spellcheck={false} {...common} value={String(value)} onInput={text} />;
  else control = <textarea rows={2} spellcheck={false} {...common} value={String(value)} onInput={text} />;
  return (
    <div class={`field field-${kind}${error ? ' invalid' : ''}`}>
      <label for={id}>
        <code>{name}</code>
        {kind === 'json' ? <span class="muted"> (JSON)</span> : null}
      </label>
      {control}
      <small id={`${id}-help`} class="help">
        {schema.description}
        {def}
      </small>
      {error ? (
        <small id={`${id}-error`} class="error" role="alert">
          {error}
        </small>
      ) : null}
    </div>
  );
}
