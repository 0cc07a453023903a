/**
 * The dashboard served at `GET /` (SPEC §6): one self-contained page — inline CSS and vanilla JS, no
 * build step, nothing fetched from elsewhere — over the public `/v1` API. Its script and stylesheet
 * are exported on their own so the Content-Security-Policy can allow exactly them by hash.
 * @example
 * app.get('/', async (c) => c.html(DASHBOARD_HTML, 200, await dashboardHeaders()));
 */
import { TERMINAL_RUN_STATUSES } from '../../plan/model';
import { API_JS } from './client/api';
import { DOM_JS } from './client/dom';
import { LIVE_EVENTS_JS } from './client/live-events';
import { MAIN_JS } from './client/main';
import { NEW_RUN_JS } from './client/new-run';
import { RUN_VIEW_JS } from './client/run-view';
import { RUNS_LIST_JS } from './client/runs-list';
import { TOOLS_JS } from './client/tools';
import { DEMO_CONFIG, DEMO_PLAN } from './demo-plan';
import { DASHBOARD_BODY } from './markup';
import { DASHBOARD_CSS } from './style';

/**
 * JSON that is safe inside a `<script>` element: `<` is escaped so no string in it can close the
 * element, and U+2028/U+2029 so older parsers do not end a line inside a string.
 */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replaceAll('<', '\\u003c')
    .replaceAll('\u2028', '\\u2028')
    .replaceAll('\u2029', '\\u2029');
}

const CONSTANTS = [
  `const DEMO_PLAN = ${scriptJson(DEMO_PLAN)};`,
  `const DEMO_CONFIG = ${scriptJson(DEMO_CONFIG)};`,
  `const TERMINAL = new Set(${scriptJson([...TERMINAL_RUN_STATUSES])});`,
].join('\n');

/** The page's whole script: one strict-mode function scope, so nothing leaks onto `window`. */
export const DASHBOARD_SCRIPT = `(() => {
'use strict';
${CONSTANTS}
${[DOM_JS, API_JS, RUNS_LIST_JS, RUN_VIEW_JS, LIVE_EVENTS_JS, NEW_RUN_JS, TOOLS_JS, MAIN_JS].join('')}
})();
`;

/** The page's stylesheet. */
export const DASHBOARD_STYLE = DASHBOARD_CSS;

/** The complete HTML document. */
export const DASHBOARD_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>edgeplan dashboard</title>
<link rel="icon" href="data:,">
<style>${DASHBOARD_STYLE}</style>
</head>
<body>
${DASHBOARD_BODY}
<script>${DASHBOARD_SCRIPT}</script>
</body>
</html>
`;
