/** The dashboard's stylesheet: light and dark themes; two columns from 1000px, one below. */
export const DASHBOARD_CSS = `
:root {
  color-scheme: light dark;
  --bg: #f5f6f8; --panel: #fff; --fg: #1b1f24; --muted: #5b6470; --line: #d8dde3; --accent: #0b5cad;
  --code-bg: #f0f2f5; --focus: #1a73e8;
  --ok: #116329; --ok-bg: #dafbe1; --bad: #a40e26; --bad-bg: #ffebe9; --run: #0550ae; --run-bg: #ddf4ff;
  --wait: #7d4e00; --wait-bg: #fff8c5; --skip: #57606a; --skip-bg: #eaeef2; --rev: #6639ba; --rev-bg: #fbefff;
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #0d1117; --panel: #161b22; --fg: #e6edf3; --muted: #9198a1; --line: #30363d; --accent: #58a6ff;
    --code-bg: #1f252d; --focus: #58a6ff;
    --ok: #56d364; --ok-bg: #12261e; --bad: #ff7b72; --bad-bg: #2d1214; --run: #79c0ff; --run-bg: #0c2d48;
    --wait: #e3b341; --wait-bg: #2e2410; --skip: #9198a1; --skip-bg: #21262d; --rev: #d2a8ff; --rev-bg: #271d3b;
  }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg); }
a { color: var(--accent); }
h1 { font-size: 1.25rem; margin: 0; }
h2 { font-size: 1.1rem; margin: 0 0 .6rem; }
h3 { font-size: .95rem; margin: 1.1rem 0 .4rem; }
code, pre, .mono, textarea { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12.5px; }
pre { background: var(--code-bg); border: 1px solid var(--line); border-radius: 6px; padding: .5rem .6rem; margin: .3rem 0;
  overflow: auto; max-height: 22rem; white-space: pre-wrap; word-break: break-word; }
:focus-visible { outline: 2px solid var(--focus); outline-offset: 2px; }
.sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
.skip { position: absolute; left: -999px; }
.skip:focus { left: .5rem; top: .5rem; background: var(--panel); padding: .3rem .6rem; z-index: 2; }
.muted { color: var(--muted); font-weight: normal; }
.small { font-size: 12px; }
button, select, input, textarea { font: inherit; color: inherit; }
button { background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: .3rem .75rem; cursor: pointer; }
button:hover:not(:disabled) { border-color: var(--accent); }
button:disabled { opacity: .5; cursor: not-allowed; }
button.primary { background: var(--accent); border-color: var(--accent); color: #fff; font-weight: 600; }
button.danger { color: var(--bad); border-color: var(--bad); }
button.small { padding: .1rem .5rem; font-size: 12px; }
select, input[type=password], input[type=text] { background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: .3rem .45rem; }
textarea { display: block; width: 100%; margin: .2rem 0 .6rem; background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: .45rem; resize: vertical; tab-size: 2; }
label { font-weight: 600; }
label.check { font-weight: normal; display: inline-flex; gap: .3rem; align-items: center; }

.top { display: flex; flex-wrap: wrap; gap: .6rem 1.5rem; align-items: center; padding: .7rem 1.2rem;
  background: var(--panel); border-bottom: 1px solid var(--line); }
.top nav { margin-left: auto; display: flex; gap: 1rem; }
.token { display: flex; flex-wrap: wrap; gap: .4rem; align-items: center; }
.token input { width: 16rem; max-width: 60vw; }
.note { margin: .8rem 1.2rem 0; padding: .5rem .8rem; border: 1px solid var(--wait); background: var(--wait-bg); border-radius: 6px; }

.layout { display: grid; gap: 1rem; padding: 1rem 1.2rem 2rem; grid-template-columns: minmax(0, 1fr); }
@media (min-width: 1000px) {
  .layout { grid-template-columns: minmax(380px, 470px) minmax(0, 1fr); grid-template-rows: auto auto auto 1fr; align-items: start; }
  #runs-panel, #new-panel, #tools-panel { grid-column: 1; }
  #run-panel { grid-column: 2; grid-row: 1 / span 4; }
}
.panel { background: var(--panel); border: 1px solid var(--line); border-radius: 8px; padding: .9rem 1rem; min-width: 0; }
.toolbar { display: flex; flex-wrap: wrap; gap: .4rem .5rem; align-items: center; margin: .5rem 0; }
.pager { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; margin-top: .5rem; }

.scroll { overflow-x: auto; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: .3rem .45rem; border-bottom: 1px solid var(--line); vertical-align: top; }
thead th { font-size: 12px; color: var(--muted); font-weight: 600; white-space: nowrap; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
td.empty { color: var(--muted); text-align: center; padding: 1rem; }
caption { text-align: left; font-weight: 600; padding: .3rem 0; }
/* The run cell takes what the other columns leave, and its id and goal are cut with an ellipsis. */
.runs td.run-cell { width: 100%; max-width: 0; }
.runs td.run-cell a, .runs .goal { display: block; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.runs .goal { font-size: 12px; color: var(--muted); }
/* Too many columns to squeeze: below this the table scrolls sideways instead. */
table.steps { min-width: 640px; }
.runs tr.selected { background: var(--run-bg); }
.steps th[scope=row] { font-weight: 600; }
.steps td.err { color: var(--bad); max-width: 22rem; overflow-wrap: anywhere; }
.steps tr.result-row td { background: var(--code-bg); }
.findings td:first-child { white-space: nowrap; }
.findings td.mono { overflow-wrap: anywhere; min-width: 5rem; }
.findings td.msg { overflow-wrap: anywhere; min-width: 10rem; }

.badge { display: inline-block; padding: 0 .5rem; border-radius: 999px; font-size: 12px; font-weight: 600; line-height: 1.6;
  border: 1px solid currentColor; white-space: nowrap; color: var(--skip); background: var(--skip-bg); }
.s-completed { color: var(--ok); background: var(--ok-bg); }
.s-failed, .s-aborted, .s-notfound { color: var(--bad); background: var(--bad-bg); }
.s-running, .s-planning { color: var(--run); background: var(--run-bg); }
.s-blocked, .s-awaiting_approval, .s-awaiting_input { color: var(--wait); background: var(--wait-bg); }
.s-revised { color: var(--rev); background: var(--rev-bg); }
.tag { display: inline-block; margin-left: .4rem; padding: 0 .4rem; border-radius: 4px; font-size: 11px; background: var(--code-bg); color: var(--muted); }
code.code { background: var(--code-bg); padding: 0 .3rem; border-radius: 4px; }

.error { border: 1px solid var(--bad); background: var(--bad-bg); border-radius: 6px; padding: .4rem .7rem; margin: .5rem 0; }
.error p { margin: .2rem 0; }
.okbox, .warnbox { border: 1px solid var(--ok); background: var(--ok-bg); border-radius: 6px; padding: .4rem .7rem; margin: .5rem 0; }
.warnbox { border-color: var(--wait); background: var(--wait-bg); }
.ok { color: var(--ok); }
dl.kv { display: grid; grid-template-columns: max-content 1fr; gap: .15rem .8rem; margin: .5rem 0; }
dl.kv dt { color: var(--muted); }
dl.kv dd { margin: 0; overflow-wrap: anywhere; }
dl.meta { grid-template-columns: max-content 1fr max-content 1fr; }
@media (max-width: 640px) { dl.meta { grid-template-columns: max-content 1fr; } }

.run-head { display: flex; flex-wrap: wrap; justify-content: space-between; gap: .5rem 1rem; align-items: flex-start; }
.run-title { min-width: 0; }
#run-id { font-size: 14px; font-weight: 600; overflow-wrap: anywhere; }
#run-goal { margin: .2rem 0 0; }
.progress { display: flex; flex-wrap: wrap; gap: .3rem .8rem; align-items: center; margin: .6rem 0; }
.progress progress { flex: 1 1 16rem; height: .9rem; accent-color: var(--run); }
.progress progress.p-completed { accent-color: var(--ok); }
.progress progress.p-failed, .progress progress.p-aborted, .progress progress.p-cancelled { accent-color: var(--bad); }
dl.counts { display: flex; flex-wrap: wrap; gap: .4rem; margin: .4rem 0; }
dl.counts div { border: 1px solid var(--line); border-radius: 6px; padding: .2rem .6rem; min-width: 5rem; }
dl.counts dt { font-size: 11px; color: var(--muted); text-transform: uppercase; letter-spacing: .03em; }
dl.counts dd { margin: 0; font-size: 1.1rem; font-weight: 600; font-variant-numeric: tabular-nums; }

.log-bar { display: flex; flex-wrap: wrap; gap: .4rem .8rem; align-items: center; margin-bottom: .3rem; }
.live::before { content: "●"; margin-right: .3rem; }
.live-live { color: var(--ok); }
.live-connecting { color: var(--wait); }
.live-retrying { color: var(--bad); }
.log { list-style: none; margin: 0; padding: 0; max-height: 26rem; overflow: auto; border: 1px solid var(--line); border-radius: 6px;
  font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12px; }
.log:empty::after { content: "No events yet."; display: block; padding: .6rem; color: var(--muted); font-family: system-ui, sans-serif; }
.ev { border-bottom: 1px solid var(--line); }
.ev summary { cursor: pointer; padding: .15rem .5rem; display: flex; gap: .6rem; overflow: hidden; white-space: nowrap; }
.ev summary::before { content: "▸"; color: var(--muted); }
.ev details[open] > summary::before { content: "▾"; }
.ev summary .esum { overflow: hidden; text-overflow: ellipsis; color: var(--muted); }
.ev .seq { color: var(--muted); min-width: 2.5rem; text-align: right; }
.ev .etype { font-weight: 600; }
.ev .estep { color: var(--accent); }
.ev-bad .etype { color: var(--bad); }
.ev pre { margin: 0 .5rem .4rem; }
.tools { list-style: none; padding: 0; margin: 0; }
.tools li { border-bottom: 1px solid var(--line); padding: .25rem 0; }
.tools summary { cursor: pointer; }
`;
