import type { RunDetail } from '../../../schema/web-api.ts';
import { breakable, h } from '../dom.ts';
import { when } from '../format.ts';

/**
 * A run's change control on its page: where it came from (CI event, pull request, head commit), the
 * changelog entries that selected it, and every status it has had (staged, unstaged, reused, ingested),
 * with who and why.
 */

/** Only web links become links: a stored value is text, never a script URL. */
const link = (url: string, text: string) =>
  /^https?:\/\//i.test(url) ? h('a', { href: url, target: '_blank', rel: 'noopener' }, text) : text;

function provenance(d: RunDetail): HTMLElement {
  const p = d.run.provenance;
  if (p === null)
    return h('p', { class: 'note' }, 'Provenance: not recorded (ingested before infx recorded it).');
  const parts: (string | HTMLElement)[] = [p.event];
  if (p.prNumber !== null) parts.push(` · PR #${p.prNumber}`);
  if (p.headSha !== null) parts.push(' · head ', h('span', { class: 'mono' }, p.headSha.slice(0, 12)));
  if (p.workflow !== null) parts.push(` · ${p.workflow}`);
  if (p.labels !== null) parts.push(` · labels: ${p.labels.join(', ') || 'none'}`);
  if (p.runUrl !== null) parts.push(' · ', link(p.runUrl, 'CI run'));
  return h('p', { class: 'provenance' }, 'From: ', ...parts);
}

function changelog(d: RunDetail): HTMLElement {
  if (d.changelog.length === 0)
    return h(
      'p',
      { class: 'note changelog-empty' },
      'No changelog entries are linked to this run (its matrix did not come from infx changelog matrix).',
    );
  const first = d.changelog[0]!;
  return h(
    'div',
    null,
    h('h3', null, `Changelog entries (${first.baseRef ?? '?'}..${first.headRef ?? '?'})`),
    h(
      'table',
      { class: 'table changelog' },
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          ['#', 'Config keys', 'Description', 'PR'].map((t) => h('th', null, t)),
        ),
      ),
      h(
        'tbody',
        null,
        d.changelog.map((e) =>
          h(
            'tr',
            null,
            h('td', null, String(e.index)),
            h('td', null, breakable(e.entry['config-keys'].join(', '), { class: 'mono' })),
            h('td', null, e.entry.description.join(' ')),
            h(
              'td',
              null,
              e.prLink ? link(e.prLink, e.prLink.replace(/^https?:\/\/(www\.)?github\.com\//, '')) : '—',
            ),
          ),
        ),
      ),
    ),
  );
}

function history(d: RunDetail): HTMLElement {
  return h(
    'div',
    null,
    h('h3', null, 'Status history'),
    h(
      'ol',
      { class: 'status-history' },
      d.statusHistory.map((e) =>
        h(
          'li',
          null,
          `${when(e.at)} · ${e.action}: ${e.from ?? '—'} → ${e.to}`,
          e.actor ? ` · by ${e.actor}` : '',
          e.reason ? ` · ${e.reason}` : '',
        ),
      ),
    ),
  );
}

export function runChanges(d: RunDetail): HTMLElement {
  return h(
    'section',
    { class: 'card run-changes' },
    h('h2', null, 'Change control'),
    provenance(d),
    changelog(d),
    history(d),
  );
}
