import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { WorkloadError } from './errors.ts';
import { fingerprintOf, type LoadedTokenizer } from './fingerprint.ts';

/**
 * A tokenizer from a local Hugging Face model directory: `tokenizer.json` (required) and
 * `tokenizer_config.json` (optional) read with @huggingface/tokenizers; the chat template from
 * `chat_template.jinja`, `chat_template.json` or `tokenizer_config.json`, rendered with @huggingface/jinja.
 */

const SUPPORTED_MODELS = ['BPE', 'WordPiece', 'Unigram'];

const HOW =
  'pass --tokenizer a local Hugging Face model directory (with tokenizer.json) or a tokenizer.json file';

export async function loadHuggingFaceTokenizer(path: string): Promise<LoadedTokenizer> {
  const abs = resolve(path);
  let isDir: boolean;
  try {
    isDir = statSync(abs).isDirectory();
  } catch (err) {
    const missing = (err as NodeJS.ErrnoException).code === 'ENOENT';
    throw new WorkloadError(
      missing ? `tokenizer path ${path} does not exist: ${HOW}` : `cannot read ${path}: ${errorText(err)}`,
    );
  }
  const dir = isDir ? abs : dirname(abs);
  const tokenizerFile = isDir ? join(abs, 'tokenizer.json') : abs;
  if (!existsSync(tokenizerFile)) {
    throw new WorkloadError(
      `no tokenizer.json in ${dir}: infx needs the "fast" tokenizer file. If the model only ships ` +
        'tokenizer.model or vocab.json + merges.txt, convert it once with transformers ' +
        '(AutoTokenizer.from_pretrained(dir).save_pretrained(dir)), or download tokenizer.json from the model repository',
    );
  }
  const tokenizerText = readText(tokenizerFile);
  const tokenizerJson = parseJson(tokenizerFile, tokenizerText);
  const configFile = join(dir, 'tokenizer_config.json');
  const configText = existsSync(configFile) ? readText(configFile) : null;
  const config = configText === null ? {} : parseJson(configFile, configText);
  if (!isRecord(tokenizerJson)) throw unsupported(tokenizerFile, 'the file is not a JSON object');
  if (!isRecord(config)) throw new WorkloadError(`${configFile} is not a JSON object: fix or remove it`);
  // The library guesses a model from the vocabulary's shape when it does not know the type (a WordLevel
  // model would silently become something else): only the types it implements are accepted.
  const modelType = isRecord(tokenizerJson.model) ? tokenizerJson.model.type : undefined;
  if (typeof modelType === 'string' && !SUPPORTED_MODELS.includes(modelType)) {
    throw unsupported(tokenizerFile, `model type ${modelType} is not implemented`);
  }

  const { Tokenizer } = await import('@huggingface/tokenizers');
  let tokenizer: InstanceType<typeof Tokenizer>;
  try {
    tokenizer = new Tokenizer(tokenizerJson, config);
  } catch (err) {
    throw unsupported(tokenizerFile, errorText(err));
  }
  const vocabSize = baseVocabSize(tokenizerJson) ?? tokenizer.get_vocab(false).size;
  if (vocabSize < 1) throw unsupported(tokenizerFile, 'its model has an empty vocabulary');

  const template = findChatTemplate(dir, config, configFile);
  const render = template === null ? null : await compileTemplate(template, config);

  return {
    kind: 'huggingface',
    name: basename(dir),
    path: dir,
    vocabSize,
    fingerprint: fingerprintOf(['huggingface', tokenizerText, configText, template?.source ?? null]),
    encode: (text) => tokenizer.encode(text, { add_special_tokens: false }).ids,
    // The library rejects an empty list; an empty prompt is legitimate here.
    decode: (ids) => (ids.length === 0 ? '' : tokenizer.decode([...ids])),
    applyChatTemplate: (userText) => (render === null ? null : render(userText)),
  };
}

/**
 * The model's base vocabulary, as Hugging Face's `tokenizer.vocab_size` counts it: the entries of the
 * model's own vocabulary, without the added tokens listed beside it (BPE/WordPiece: an object of
 * token → id; Unigram: a list of [piece, score]).
 */
function baseVocabSize(tokenizerJson: Record<string, unknown>): number | null {
  const model = tokenizerJson.model;
  if (!isRecord(model)) return null;
  const vocab = model.vocab;
  if (Array.isArray(vocab)) return vocab.length;
  if (isRecord(vocab)) return Object.keys(vocab).length;
  return null;
}

interface TemplateSource {
  source: string;
  /** Where it came from, for error messages. */
  origin: string;
}

/** Like transformers: a separate `chat_template.jinja` wins over the one in tokenizer_config.json. */
function findChatTemplate(
  dir: string,
  config: Record<string, unknown>,
  configFile: string,
): TemplateSource | null {
  const jinjaFile = join(dir, 'chat_template.jinja');
  if (existsSync(jinjaFile)) return { source: readText(jinjaFile), origin: jinjaFile };
  const jsonFile = join(dir, 'chat_template.json');
  if (existsSync(jsonFile)) {
    const parsed = parseJson(jsonFile, readText(jsonFile));
    const found = isRecord(parsed) ? pickTemplate(parsed.chat_template, jsonFile) : null;
    if (found !== null) return found;
  }
  return pickTemplate(config.chat_template, configFile);
}

/** `chat_template` is a string, or a list of {name, template} from which "default" is used. */
function pickTemplate(value: unknown, file: string): TemplateSource | null {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string') return { source: value, origin: `${file} (chat_template)` };
  if (Array.isArray(value)) {
    const named = value.filter(
      (t): t is { name: string; template: string } =>
        isRecord(t) && typeof t.name === 'string' && typeof t.template === 'string',
    );
    const chosen = named.find((t) => t.name === 'default');
    if (chosen) return { source: chosen.template, origin: `${file} (chat_template "default")` };
    const names = named.map((t) => t.name).join(', ') || 'none';
    throw new WorkloadError(
      `${file} lists several chat templates (${names}) but none is named "default": add one named "default"`,
    );
  }
  throw new WorkloadError(`chat_template in ${file} must be a string or a list of {name, template}`);
}

async function compileTemplate(
  template: TemplateSource,
  config: Record<string, unknown>,
): Promise<(userText: string) => string> {
  const { Template } = await import('@huggingface/jinja');
  let compiled: InstanceType<typeof Template>;
  try {
    compiled = new Template(template.source);
  } catch (err) {
    throw new WorkloadError(`cannot parse the chat template in ${template.origin}: ${errorText(err)}`);
  }
  // What transformers passes besides the messages: the special tokens as strings. raise_exception and
  // strftime_now are built into @huggingface/jinja.
  const specials: Record<string, string> = {};
  for (const key of [
    'bos_token',
    'eos_token',
    'unk_token',
    'pad_token',
    'sep_token',
    'cls_token',
    'mask_token',
  ]) {
    const text = tokenText(config[key]);
    if (text !== null) specials[key] = text;
  }
  const render = (userText: string): string => {
    try {
      return compiled.render({
        ...specials,
        messages: [{ role: 'user', content: userText }],
        add_generation_prompt: true,
      });
    } catch (err) {
      throw new WorkloadError(`the chat template in ${template.origin} failed to render: ${errorText(err)}`);
    }
  };
  render('a'); // fail at load time, not in the middle of building prompts
  return render;
}

/** A special token in tokenizer_config.json: a string, or an AddedToken object with `content`. */
function tokenText(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (isRecord(value) && typeof value.content === 'string') return value.content;
  return null;
}

function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new WorkloadError(`cannot read ${file}: ${errorText(err)}`);
  }
}

function parseJson(file: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    const hint = text.startsWith('version https://git-lfs')
      ? ' (it is a Git LFS pointer: run `git lfs pull` in the model directory)'
      : ' (is the file complete? re-download it)';
    throw new WorkloadError(`invalid JSON in ${file}: ${errorText(err)}${hint}`);
  }
}

function unsupported(file: string, why: string): WorkloadError {
  return new WorkloadError(
    `unsupported tokenizer in ${file}: ${why}. infx reads tokenizer.json with @huggingface/tokenizers ` +
      '(BPE, WordPiece, Unigram models); use the tokenizer.json of the served model as saved by a recent transformers',
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
