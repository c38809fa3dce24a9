import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { validationFailed } from '../../platform/errors.js';
import { findServiceKind } from '../integrations/integration.service.js';
import { SECRET_REFERENCE, SECRET_SETTINGS, configFileSchema, isChatEntry, type ConfigFile, type FormEntry, type IntegrationEntry } from './config-file.schema.js';

export type ConfigFormat = 'json' | 'yaml';

/** YAML for `.yaml` and `.yml`, JSON otherwise. */
export function formatOfPath(path: string): ConfigFormat {
  return /\.ya?ml$/i.test(path) ? 'yaml' : 'json';
}

/** The file's text as a checked configuration; every problem is named by its place in the file. */
export function parseConfigFile(source: string, format: ConfigFormat): ConfigFile {
  let data: unknown;
  try {
    data = format === 'yaml' ? parseYaml(source) : JSON.parse(source);
  } catch (err) {
    throw validationFailed(`The configuration file is not valid ${format === 'yaml' ? 'YAML' : 'JSON'}: ${err instanceof Error ? err.message : String(err)}`);
  }
  const parsed = configFileSchema.safeParse(data);
  if (!parsed.success) {
    const fieldErrors: Record<string, string> = {};
    for (const issue of parsed.error.issues) fieldErrors[issue.path.map(String).join('.') || '(file)'] ??= issue.message;
    throw validationFailed('The configuration file is not valid.', fieldErrors);
  }
  return parsed.data;
}

export function stringifyConfigFile(file: ConfigFile, format: ConfigFormat): string {
  return format === 'yaml' ? stringifyYaml(file, { lineWidth: 0 }) : `${JSON.stringify(file, null, 2)}\n`;
}

/** A form of the file with its `${VARIABLE}` references replaced by the variables' values. */
export interface ResolvedForm extends FormEntry {
  /** Which variable each secret came from, for messages: the values are never printed. */
  readonly secretSources: Record<string, string>;
}

/**
 * Replaces every secret reference with its variable's value. Every missing variable is named at
 * once, before anything is read from or written to the server.
 */
export function resolveSecrets(file: ConfigFile, environment: Readonly<Record<string, string | undefined>>): ResolvedForm[] {
  const missing: Record<string, string> = {};
  const lookUp = (reference: string, place: string, sources: Record<string, string>, field: string): string => {
    const name = SECRET_REFERENCE.exec(reference)![1]!;
    sources[field] = name;
    const value = environment[name];
    if (value === undefined || value === '') missing[place] = `the environment variable ${name} is not set`;
    return value ?? '';
  };
  const forms = file.forms.map((form, index) => {
    const sources: Record<string, string> = {};
    const settings = form.settings && { ...form.settings };
    if (settings) {
      for (const name of SECRET_SETTINGS) {
        const value = settings[name];
        if (typeof value === 'string') settings[name] = lookUp(value, `forms.${index}.settings.${name}`, sources, name);
      }
    }
    const integrations = form.integrations?.map((integration, i) => {
      const resolved: IntegrationEntry = { ...integration };
      const id = `integrations.${integration.kind}.${integration.name}`;
      const secretNames = isChatEntry(integration) ? ['url', 'token'] : (findServiceKind(integration.kind)?.fields.filter((f) => f.secret).map((f) => f.name) ?? []);
      for (const name of secretNames) {
        const value = (integration as Record<string, unknown>)[name];
        if (typeof value === 'string') (resolved as Record<string, unknown>)[name] = lookUp(value, `forms.${index}.integrations.${i}.${name}`, sources, `${id}.${name}`);
      }
      return resolved;
    });
    return { ...form, ...(settings && { settings }), ...(integrations && { integrations }), secretSources: sources };
  });
  if (Object.keys(missing).length > 0) {
    throw validationFailed('The configuration file names environment variables that are not set; nothing was changed.', missing);
  }
  return forms;
}
