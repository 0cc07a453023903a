/** A new run: a goal for the planner, or a plan (JSON, a `_tool` array, TEA YAML, LLMCompiler) checked as you type. */
import { useRef, useState } from 'preact/hooks';
import type { CreateRunRequest } from '../../client';
import { api, findingsOf, refusalText } from '../api';
import { FindingList, PlanEditor, sourceOf, type Finding } from '../components/plan-editor';
import { DEMO_CONFIG, DEMO_PLAN } from '../demo-plan';
import { configOf, inputOf } from '../page-inputs';
import { href, navigate } from '../router';

export function NewRunPage() {
  const [mode, setMode] = useState<'plan' | 'goal'>('plan');
  const [text, setText] = useState(() => JSON.stringify(DEMO_PLAN, null, 2));
  const [goal, setGoal] = useState('');
  const [config, setConfig] = useState(() => JSON.stringify(DEMO_CONFIG, null, 2));
  const [input, setInput] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [findings, setFindings] = useState<Finding[]>([]);
  // One run however often Start is clicked: a second click while the first is on its way sends nothing.
  const [starting, setStarting] = useState(false);
  const inFlight = useRef(false);

  const start = async () => {
    if (inFlight.current) return;
    setError(null);
    setFindings([]);
    let body: CreateRunRequest;
    const cfg = configOf(config);
    if (!cfg.ok) return setError(cfg.error);
    const inp = inputOf(input);
    if (!inp.ok) return setError(inp.error);
    if (mode === 'goal') body = { goal };
    else {
      const source = sourceOf(text);
      if ('error' in source) return setError(source.error);
      body = { ...source.body };
    }
    // The config's fields are the server's to check (a 400 naming the field, shown here).
    if (cfg.value !== undefined) body.config = cfg.value;
    if (inp.value !== undefined) body.input = inp.value;
    inFlight.current = true;
    setStarting(true);
    try {
      const created = await api().createRun(body);
      navigate(href.run(created.run_id));
    } catch (e) {
      // The findings one a line (they ran on in one paragraph, the first twice).
      setError(refusalText(e));
      setFindings(findingsOf(e));
    } finally {
      inFlight.current = false;
      setStarting(false);
    }
  };

  return (
    <main class="new-run">
      <div class="toolbar">
        <h1>New run</h1>
        <div class="segmented" role="radiogroup" aria-label="Start from">
          <button type="button" role="radio" aria-checked={mode === 'plan'} onClick={() => setMode('plan')}>
            Plan
          </button>
          <button type="button" role="radio" aria-checked={mode === 'goal'} onClick={() => setMode('goal')}>
            Goal
          </button>
        </div>
      </div>
      {mode === 'goal' ? (
        <label class="block">
          Goal (planned by the configured LLM)
          <textarea rows={3} value={goal} onInput={(e) => setGoal((e.target as HTMLTextAreaElement).value)} />
        </label>
      ) : (
        <PlanEditor
          text={text}
          onText={setText}
          label="Plan — JSON, a _tool array, TEA YAML or LLMCompiler text"
        />
      )}
      <div class="two">
        <label class="block">
          Config (JSON)
          <textarea
            rows={5}
            spellcheck={false}
            value={config}
            onInput={(e) => setConfig((e.target as HTMLTextAreaElement).value)}
          />
        </label>
        <label class="block">
          Input (JSON, optional)
          <textarea
            rows={5}
            spellcheck={false}
            value={input}
            onInput={(e) => setInput((e.target as HTMLTextAreaElement).value)}
          />
        </label>
      </div>
      {error ? (
        <div class="refusal" role="alert">
          <p class="error">{error}</p>
          {findings.length ? <FindingList findings={findings} /> : null}
        </div>
      ) : null}
      <button type="button" class="primary" disabled={starting} onClick={() => void start()}>
        {starting ? 'Starting…' : 'Start run'}
      </button>
    </main>
  );
}
