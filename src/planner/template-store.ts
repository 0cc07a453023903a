/**
 * Where prompt templates come from: KV (`prompt-template:<id>` → `{id, version, text, system?}`) in a
 * Worker, a map in tests and in plain Node. A stored template with the default id replaces the
 * built-in one, so a deployment can change its prompt without a release.
 */
import { z } from 'zod';
import { DEFAULT_TEMPLATE, DEFAULT_TEMPLATE_ID, inlineTemplate } from './templates';
import type { PromptTemplate } from './templates';
import { issueText } from '../issue-text';

/** Reads templates by id; `null` when there is none. */
export interface TemplateStore {
  get(id: string): Promise<PromptTemplate | null>;
}

/** The KV key a template is stored under. */
export function templateKey(id: string): string {
  return `prompt-template:${id}`;
}

const StoredTemplateSchema = z.object({
  id: z.string().min(1),
  version: z.union([z.string().min(1), z.number()]).transform(String),
  text: z.string().min(1),
  system: z.string().min(1).optional(),
});

/** The subset of `KVNamespace` the store needs. */
export type KvReader = { get(key: string, type: 'text'): Promise<string | null> };

/**
 * Templates in KV. A value that is not a valid template is an error naming the key — an operator
 * wrote it and should hear about it rather than get the built-in prompt silently.
 * @example const store = new KvTemplateStore(env.KV); await store.get('plan.default');
 */
export class KvTemplateStore implements TemplateStore {
  readonly #kv: KvReader;

  constructor(kv: KvReader) {
    this.#kv = kv;
  }

  async get(id: string): Promise<PromptTemplate | null> {
    const key = templateKey(id);
    const raw = await this.#kv.get(key, 'text');
    if (raw === null) return null;
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch {
      throw new Error(`KV key "${key}" is not JSON; expected {"id", "version", "text"}`);
    }
    const parsed = StoredTemplateSchema.safeParse(json);
    if (!parsed.success) {
      const issues = parsed.error.issues
        .map((i) => `${i.path.join('.') || '(root)'}: ${issueText(i)}`)
        .join('; ');
      throw new Error(
        `KV key "${key}" is not a prompt template (${issues}); expected {"id", "version", "text"}`,
      );
    }
    return parsed.data;
  }
}

/** Templates in memory (tests, plain Node). */
export class MemoryTemplateStore implements TemplateStore {
  readonly #templates = new Map<string, PromptTemplate>();

  constructor(templates: Iterable<PromptTemplate> = []) {
    for (const t of templates) this.#templates.set(t.id, t);
  }

  put(template: PromptTemplate): void {
    this.#templates.set(template.id, template);
  }

  get(id: string): Promise<PromptTemplate | null> {
    return Promise.resolve(this.#templates.get(id) ?? null);
  }
}

/** Which template a planning request asked for. */
export type TemplateChoice = {
  /** Request text (`prompt_template` / `planning_prompt`), used as is. */
  text?: string | undefined;
  /** A stored template's id. */
  id?: string | undefined;
};

export type ResolvedTemplate = { ok: true; template: PromptTemplate } | { ok: false; message: string };

/**
 * Request text first, then a stored template by id (which must exist), then the stored default,
 * then the built-in default.
 */
export async function resolveTemplate(
  store: TemplateStore | undefined,
  choice: TemplateChoice,
): Promise<ResolvedTemplate> {
  if (choice.text !== undefined && choice.text.trim() !== '') {
    return { ok: true, template: inlineTemplate(choice.text) };
  }
  try {
    if (choice.id !== undefined && choice.id !== DEFAULT_TEMPLATE_ID) {
      const found = store ? await store.get(choice.id) : null;
      if (!found)
        return {
          ok: false,
          message: `No prompt template "${choice.id}" (KV key "${templateKey(choice.id)}")`,
        };
      return { ok: true, template: found };
    }
    const stored = store ? await store.get(DEFAULT_TEMPLATE_ID) : null;
    return { ok: true, template: stored ?? DEFAULT_TEMPLATE };
  } catch (err) {
    return { ok: false, message: err instanceof Error ? err.message : String(err) };
  }
}
