// The styles, in cascade order.
import './styles/base.css';
import './styles/controls.css';
import './styles/chart.css';
import './styles/tables.css';
import { clear, h } from './dom.ts';
import { agenticView } from './views/agentic.ts';
import { compareView } from './views/compare.ts';
import { evaluationView } from './views/evaluation.ts';
import { evaluationSamplesView } from './views/evaluation-samples.ts';
import { inferenceView } from './views/inference.ts';
import { runView } from './views/run.ts';
import { runsView } from './views/runs.ts';
import type { View } from './views/view.ts';

/**
 * The dashboard's entry: a header with the views and a client-side router over the paths the server
 * answers with this page (/, /agentic, /runs, /runs/:id, /compare, /evaluation, /evaluation/:run/:point). Links inside the app navigate without a reload.
 */

const NAV: [string, string][] = [
  ['/', 'Inference'],
  ['/agentic', 'Agentic'],
  ['/runs', 'Runs'],
  ['/compare', 'Compare'],
  ['/evaluation', 'Evaluation'],
];

const app = document.getElementById('app') as HTMLElement;
const header = h(
  'header',
  { class: 'top' },
  h('a', { class: 'brand', href: '/', 'data-app-link': '1' }, 'infx'),
  h(
    'nav',
    null,
    NAV.map(([href, label]) => h('a', { href, 'data-app-link': '1', 'data-nav': href }, label)),
  ),
  h('span', { class: 'spacer' }),
  h('a', { href: '/api/health', class: 'muted', target: '_blank', rel: 'noopener' }, 'API'),
);
const main = h('main', { id: 'view' });
app.append(header, main);

let current: View | null = null;

function route(): void {
  current?.dispose();
  clear(main);
  const path = location.pathname;
  const section = path === '/' ? '/' : `/${path.split('/')[1] ?? ''}`;
  for (const a of header.querySelectorAll('a[data-nav]'))
    a.toggleAttribute('aria-current', a.getAttribute('data-nav') === section);
  const run = /^\/runs\/(.+)$/.exec(path);
  const evalPoint = /^\/evaluation\/([^/]+)\/([^/]+)$/.exec(path);
  if (path === '/' || path === '/index.html') current = inferenceView(main);
  else if (path === '/runs' || path === '/runs/') current = runsView(main);
  else if (run) current = runView(main, decodeURIComponent(run[1]!));
  else if (path === '/compare') current = compareView(main);
  else if (path === '/agentic') current = agenticView(main);
  else if (path === '/evaluation' || path === '/evaluation/') current = evaluationView(main);
  else if (evalPoint)
    current = evaluationSamplesView(
      main,
      decodeURIComponent(evalPoint[1]!),
      decodeURIComponent(evalPoint[2]!),
    );
  else {
    main.append(
      h('section', { class: 'card' }, h('h1', null, 'Not found'), h('p', null, `No page at ${path}.`)),
    );
    current = null;
  }
  document.title = `infx · ${NAV.find(([p]) => p === section)?.[1] ?? 'dashboard'}`;
}

document.addEventListener('click', (e) => {
  const a = (e.target as Element).closest?.('a[data-app-link]') as HTMLAnchorElement | null;
  if (!a || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  const url = new URL(a.href);
  if (url.origin !== location.origin) return;
  e.preventDefault();
  if (url.pathname + url.search + url.hash !== location.pathname + location.search + location.hash)
    history.pushState(null, '', url.pathname + url.search + url.hash);
  route();
  window.scrollTo(0, 0);
});
window.addEventListener('popstate', route);
route();
