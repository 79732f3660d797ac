import { appLink, h } from '../dom.ts';

/** What the inference view says instead of, or above, its chart. */

/**
 * The default view shows official results; where none are stored (the demo stores simulated results as
 * unofficial) the server falls back to another status: say so, and link to that view.
 */
export function fallbackNotice(asked: string, shown: string, simulated: boolean): (string | Node)[] {
  return [
    `No ${asked} results are stored, so this shows the latest ${shown} results instead` +
      (simulated ? ", labelled simulated where infx's simulated engine served them" : '') +
      '. ',
    appLink(`/?status=${encodeURIComponent(shown)}`, `Open the ${shown} view`, { 'data-status': shown }),
  ];
}

/** An empty store: how to fill it. */
export function noResults(): HTMLElement[] {
  return [
    h('h2', null, 'No results stored yet'),
    h(
      'p',
      null,
      'Run a sweep and store it: ',
      h('code', null, 'infx sweep … --out runs'),
      ' then ',
      h('code', null, 'infx ingest runs/<run-id>'),
      '. This page shows them as soon as they are stored.',
    ),
  ];
}
