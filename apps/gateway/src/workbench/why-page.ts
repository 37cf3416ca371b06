/**
 * The Why page (DESIGN.md §5a): the walk of `world why` (@world/why, world-spec §7.3, §9), link by
 * link with ✓/✗, from a pasted index, ref, invocation id, receipt id, result object or a result's
 * `world` block alone. A target that cannot be followed is shown as a named stop — the walk's own
 * message — never guessed past.
 */
import {
  locate,
  parseTarget,
  summaryLine,
  walkWithLog,
  WhyError,
  shortRef,
  type Link,
  type LogLinkReads,
  type Provenance,
  type Target,
} from '@world/why';
import { decodeBase64, isRef } from '@world/canonical';
import { html, mark, type Html } from './html.js';
import type { LogProofReads } from './proof-section.js';

/** The workbench's log reads as the inclusion link takes them: the key line, the proof's hashes decoded. */
export function logLinkReadsOf(log: LogProofReads): LogLinkReads {
  return {
    // The key route's line ends with a newline; the verifier takes the line itself.
    key: async () => (await log.key()).trim(),
    checkpoint: () => log.checkpoint(),
    inclusion: async (index, size) => ({
      hashes: (await log.inclusion(index, size)).hashes.map((h) => decodeBase64(h, 'tree hash')),
    }),
  };
}

/** The result of one walk, ready to render. */
export type WhyOutcome =
  | { kind: 'none' }
  | { kind: 'stop'; target: string; reason: string }
  | { kind: 'walked'; target: string; index: number; matchedBy: string | null; links: Link[] };

/**
 * The target text as pasted: a JSON object is a result or its `world` block (`world why -`),
 * anything else a target.
 */
function targetOf(text: string): Target {
  return text.startsWith('{') ? { kind: 'result' } : parseTarget(text);
}

/**
 * Walks what `text` names, in the caller's reads: the same links as `world why`, the inclusion
 * link in the signed log last.
 * @throws the reads' errors other than the walk's own stops
 */
export async function runWhy(
  reads: Provenance,
  log: LogLinkReads,
  text: string,
): Promise<WhyOutcome> {
  const target = text.trim();
  if (target === '') return { kind: 'none' };
  try {
    const located = await locate(reads, targetOf(target), { stdin: async () => target });
    const links = await walkWithLog(reads, log, located);
    if (links === null)
      return { kind: 'stop', target, reason: `log entry ${located.index} not found` };
    return { kind: 'walked', target, index: located.index, matchedBy: located.matchedBy, links };
  } catch (err) {
    if (err instanceof WhyError) return { kind: 'stop', target, reason: err.message };
    throw err;
  }
}

/**
 * The workbench page that shows a link's ref: the entry's page for the entry and its place in the
 * signed log, the Why walk of a world ref (a world is no object: GET /v1/worlds), an object's page
 * for the rest. None for a ref this viewer may not see (another episode's: a named stop, its
 * detail says so) or for a link without a ref.
 * @param index the entry the links were walked from
 */
function refHref(l: Link, index: number): string | null {
  if (l.hidden === true || !isRef(l.ref)) return null;
  if (l.name === 'entry' || l.name === 'log') return `/workbench/entry/${index}`;
  if (l.name === 'world') return `/workbench/why?target=${l.ref}`;
  return `/workbench/objects/${l.ref}`;
}

/**
 * The links as a table: one row per link, its ref a link to the page that shows it (refHref).
 * @param index the entry the links were walked from
 */
export function linksTable(links: Link[], index: number): Html {
  return html`<table class="links">
      <thead>
        <tr>
          <th></th>
          <th>link</th>
          <th>ref</th>
          <th>detail</th>
        </tr>
      </thead>
      <tbody>
        ${links.map((l) => {
          const href = refHref(l, index);
          return html`<tr class="link ${l.ok === false ? 'broken' : ''}" data-link="${l.name}">
            <td>${mark(l.ok)}</td>
            <td>${l.name}</td>
            <td>
              ${
                href === null
                  ? html`<code>${shortRef(l.ref)}</code>`
                  : html`<a href="${href}"><code>${shortRef(l.ref)}</code></a>`
              }
            </td>
            <td>${l.detail}</td>
          </tr>`;
        })}
      </tbody>
    </table>
    <p class="summary">${summaryLine(links)}</p>`;
}

/** The page's body. */
export function whyBody(outcome: WhyOutcome): Html {
  const value = outcome.kind === 'none' ? '' : outcome.target;
  // POST: a pasted result object can be larger than a URL (still read-only: nothing changes)
  const form = html`<form method="post" action="/workbench/why">
    <label for="target"
      >An entry index, <code>head</code>, a <code>sha256:</code> ref, an <code>a2a:</code>/<code
        >mcp:</code
      >
      invocation id, a <code>rest:</code> receipt id, a result object or its
      <code>world</code> block</label
    >
    <textarea id="target" name="target" rows="3">${value}</textarea>
    <button type="submit">Walk</button>
  </form>`;
  if (outcome.kind === 'none') return form;
  if (outcome.kind === 'stop')
    return html`${form}
      <p class="stop" role="alert"><span class="bad">✗</span> stop: ${outcome.reason}</p>`;
  return html`${form}
    <p class="heading">
      why: <a href="/workbench/entry/${outcome.index}">entry ${outcome.index}</a>${
        outcome.matchedBy === null ? '' : ` (${outcome.matchedBy})`
      }
    </p>
    ${linksTable(outcome.links, outcome.index)}`;
}
