/**
 * The Entry page (DESIGN.md §5a): the entry's header with its hashes recomputed (✓/✗: its entry
 * hash, its prev against entry index-1's fields, its record re-hashed) and the walk's (world ref,
 * every object re-hashed — @world/why), the invocation's input,
 * plan, output and each effect record (decision, denial, budget before/after, request, result),
 * for writes and edits the change as a diff of what the request recorded, and every object's raw
 * JSON one click away, and the latest signed checkpoint with the entry's inclusion proof in it,
 * each verified on the server (proof-section.ts; RFC 9162 §2.1.3).
 */
import { entryHash } from '@world/canonical';
import { EffectRecordSchema, type EffectRecord } from '@world/contracts';
import {
  INVOCATION_RECORD_IDS,
  jsonOf,
  NOT_VISIBLE,
  objectProblems,
  prevProblems,
  refusedOr,
  shortRef,
  walk,
  type LogEntry,
  type Provenance,
  type StoredObject,
} from '@world/why';
import { html, mark, type Html } from './html.js';
import { linksTable } from './why-page.js';
import { CHANGE_CHARS_MAX, editedText, writtenContent } from './diff.js';
import { PageReads } from './page-reads.js';
import { checkProof, proofSection, type LogProofReads } from './proof-section.js';

/** An object as the page shows it: pretty JSON (or the byte count when it is not JSON). */
function rawJson(object: StoredObject | null): string {
  if (object === null) return '(not found)';
  if (object.hidden === true) return `(${NOT_VISIBLE})`;
  if (object.corrupt !== undefined)
    return `(World refuses to serve these bytes: ${object.corrupt})`;
  const body = jsonOf(object.payload);
  return body === undefined
    ? `(${object.payload.length} bytes, not JSON)`
    : JSON.stringify(body, null, 2);
}

/** The raw JSON of a section, cut at CHANGE_CHARS_MAX characters (the object page has it all). */
function rawSection(object: StoredObject | null, ref: string): Html {
  const text = rawJson(object);
  if (text.length <= CHANGE_CHARS_MAX) return html`<pre>${text}</pre>`;
  return html`<pre>${text.slice(0, CHANGE_CHARS_MAX)}</pre>
    <p class="more">
      … ${text.length - CHANGE_CHARS_MAX} more character(s) not shown:
      <a href="/workbench/objects/${ref}">raw object</a>
    </p>`;
}

/**
 * An object's ref as a link to its page, or — another episode's object, whose page this viewer may
 * not open (DESIGN.md §3) — the ref with a named stop instead.
 */
function objectRef(ref: string, object: StoredObject | null, text: string = ref): Html {
  return object?.hidden === true
    ? html`<code>${text}</code> <span class="stop hidden">stop: ${NOT_VISIBLE}</span>`
    : html`<a href="/workbench/objects/${ref}"><code>${text}</code></a>`;
}

function objectSection(title: string, ref: string, object: StoredObject | null): Html {
  if (object?.hidden === true)
    return html`<section class="object">
      <h2>${title}</h2>
      <p>${objectRef(ref, object)}</p>
    </section>`;
  return html`<section class="object">
    <h2>${title}</h2>
    <p>
      ${objectRef(ref, object)}${
        object === null ? '' : html` <span class="muted">${object.semanticId}</span>`
      }
    </p>
    <details>
      <summary>raw JSON</summary>
      ${rawSection(object, ref)}
    </details>
  </section>`;
}

/** The change a write or edit asked for, from its recorded effect request (world-spec §2.8, §3). */
function changeOf(request: unknown, requestRef: string): Html {
  // The broker's request is `{effect, scope, cost, now, payload}`; payload holds the tool's arguments.
  const args = (request as { payload?: Record<string, unknown> } | undefined)?.payload;
  const a = (args ?? {}) as Record<string, unknown>;
  const raw = `/workbench/objects/${requestRef}`;
  if (typeof a.old_text === 'string' && typeof a.new_text === 'string')
    return editedText(a.old_text, a.new_text, String(a.path ?? ''), raw);
  if (typeof a.content === 'string' && typeof a.path === 'string')
    return writtenContent(a.content, a.path, raw);
  return html``;
}

async function effectSection(reads: Provenance, ref: string, i: number): Promise<Html> {
  const object = await reads.object(ref);
  const parsed = object === null ? undefined : EffectRecordSchema.safeParse(jsonOf(object.payload));
  if (!parsed?.success) return objectSection(`effect record ${i + 1}`, ref, object);
  const r: EffectRecord = parsed.data;
  const [request, result] = await Promise.all([
    r.requestRef.startsWith('sha256:') ? reads.object(r.requestRef) : null,
    r.resultRef.startsWith('sha256:') ? reads.object(r.resultRef) : null,
  ]);
  const decision = r.allowed ? (r.failed ? 'failed' : 'allowed') : `denied: ${r.denial}`;
  return html`<section class="object effect">
    <h2>effect record ${i + 1}</h2>
    <p>${objectRef(ref, object)}</p>
    <dl>
      <dt>decision</dt>
      <dd class="decision">${decision}</dd>
      <dt>effect</dt>
      <dd>${r.effect}@${r.scope} cost ${r.cost}</dd>
      <dt>budget</dt>
      <dd class="budget">${r.budgetBefore} → ${r.budgetAfter}</dd>
    </dl>
    ${request === null ? '' : changeOf(jsonOf(request.payload), r.requestRef)}
    ${r.requestRef === '' ? '' : objectSection('request', r.requestRef, request)}
    ${r.resultRef === '' ? '' : objectSection('result', r.resultRef, result)}
  </section>`;
}

/** The record's section, then its input, plan, output and effect records', read concurrently. */
async function objectSections(reads: Provenance, entry: LogEntry): Promise<Html[]> {
  const record = await reads.object(entry.transitionRef);
  const body =
    record !== null && INVOCATION_RECORD_IDS.includes(record.semanticId)
      ? (jsonOf(record.payload) as
          { input?: string; plan?: string; output?: string; effects?: string[] } | undefined)
      : undefined;
  const named = (['input', 'plan', 'output'] as const).flatMap((name) => {
    const ref = body?.[name];
    return typeof ref === 'string'
      ? [reads.object(ref).then((object) => objectSection(name, ref, object))]
      : [];
  });
  const effects = (body?.effects ?? []).map((ref, i) => effectSection(reads, ref, i));
  return [
    objectSection('record', entry.transitionRef, record),
    ...(await Promise.all([...named, ...effects])),
  ];
}

/** ✓, or ✗ with what is wrong. */
function checked(problems: string[]): Html {
  return problems.length === 0
    ? mark(true)
    : html`${mark(false)} <span class="problem">${problems.join('; ')}</span>`;
}

/**
 * The header's entry hash recomputed on the server (world-spec §2.11): ✓, or ✗ naming what the
 * fields hash to — an entry World flagged as corrupt is shown, never as valid.
 */
function entryHashMark(entry: LogEntry): Html {
  const recomputed = entryHash(entry.header, entry.transitionRef);
  return recomputed === entry.entryHash
    ? mark(true)
    : html`${mark(false)}
        <span class="problem"
          >fields hash to <code>${recomputed}</code>, stored hash
          <code>${entry.entryHash}</code></span
        >`;
}

/**
 * The page's body, or null when there is no such entry. The walk, the objects' sections and the
 * proof are read concurrently over one PageReads, so each object is read once for the page.
 * @param reads the viewer's scoped reads (payloads filtered by its visibility)
 * @param log the transparency-log reads (skeleton: the same for every viewer)
 */
export async function entryBody(
  reads: Provenance,
  log: LogProofReads,
  index: number,
): Promise<Html | null> {
  const page = new PageReads(reads);
  const entry: LogEntry | null = await page.entry(index);
  if (entry === null) return null;
  const [links, sections, proof] = await Promise.all([
    walk(page, { index }),
    objectSections(page, entry),
    checkProof(log, entry),
  ]);
  const h = entry.header;
  // both read by the walk already (PageReads): no read more
  const [record, previous] = await Promise.all([
    page.object(entry.transitionRef),
    index > 0 ? refusedOr(page.entry(index - 1)) : null,
  ]);
  return html`<dl class="header">
      <dt>entryIndex</dt>
      <dd>${h.entryIndex}</dd>
      <dt>entryHash</dt>
      <dd class="entry-hash">
        <a href="/workbench/entry/${index}"><code>${entry.entryHash}</code></a>
        ${entryHashMark(entry)}
      </dd>
      <dt>prevEntryHash</dt>
      <dd class="prev">
        ${
          index > 0
            ? html`<a href="/workbench/entry/${index - 1}"><code>${h.prevEntryHash}</code></a>`
            : html`<code>${h.prevEntryHash}</code>
                <span class="muted">(the genesis prev, sha256 of nothing: no entry before)</span>`
        }
        ${checked(prevProblems(entry, index, previous))}
      </dd>
      <dt>transitionRef</dt>
      <dd class="transition-ref">
        ${objectRef(entry.transitionRef, record)}
        ${record?.hidden === true ? '' : checked(objectProblems(entry.transitionRef, record))}
      </dd>
      <dt>writtenBy</dt>
      <dd>${h.writtenBy}</dd>
      <dt>semanticsEpoch</dt>
      <dd>${h.semanticsEpoch}</dd>
      <dt>transitionFn</dt>
      <dd class="transition-fn">${objectRef(h.transitionFn, null, shortRef(h.transitionFn))}</dd>
      <dt>interpreter</dt>
      <dd class="interpreter">${objectRef(h.interpreter, null, shortRef(h.interpreter))}</dd>
    </dl>
    <h2>links</h2>
    ${linksTable(links ?? [], index)}
    <p><a href="/workbench/why?target=${index}">walk in Why</a></p>
    <details>
      <summary>raw entry JSON</summary>
      <pre>${JSON.stringify(entry, null, 2)}</pre>
    </details>
    ${sections} ${proofSection(proof, index)}`;
}

/** The Object page: one object's envelope and raw JSON. */
export async function objectBody(reads: Provenance, ref: string): Promise<Html | null> {
  const object = await reads.object(ref);
  // Another episode's object is not this viewer's page: as absent (DESIGN.md §3).
  if (object === null || object.hidden === true) return null;
  return html`<dl>
      <dt>ref</dt>
      <dd><code>${ref}</code></dd>
      <dt>semanticId</dt>
      <dd>${object.semanticId}</dd>
      <dt>provenance</dt>
      <dd>${object.provenance}</dd>
    </dl>
    <pre>${rawJson(object)}</pre>`;
}
