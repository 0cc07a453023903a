/**
 * The run's plan versions: the list, a side-by-side diff of any two (steps added, removed, changed,
 * dependency changes), and rollback to an earlier one.
 */
import { useEffect, useState } from 'preact/hooks';
import type { PlanDiff, PlanVersion, PlanVersionList } from '../../client';
import { api, errorText } from '../api';
import { ErrorAlert } from './error-alert';

type Pair = { a: PlanVersion; b: PlanVersion; diff: PlanDiff };

export function Versions({
  runId,
  current,
  canRollBack,
  ended,
  onChanged,
}: {
  runId: string;
  current: number | null;
  /** Whether the API would roll the run back now (not once it completed or was cancelled). */
  canRollBack: boolean;
  /** How the run ended (`failed`, `aborted`), null while it goes on: a rollback then does not resume it. */
  ended: string | null;
  onChanged: () => void;
}) {
  const [list, setList] = useState<PlanVersionList | null>(null);
  const [from, setFrom] = useState(1);
  const [to, setTo] = useState(1);
  const [pair, setPair] = useState<Pair | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  // Once the run goes on (a Retry), what the notice said of the ended run no longer holds.
  useEffect(() => {
    if (!ended) setNotice(null);
  }, [ended]);

  useEffect(() => {
    api()
      .listPlanVersions(runId)
      .then((l) => {
        setList(l);
        const last = l.versions.at(-1)?.version ?? 1;
        setTo(last);
        setFrom(Math.max(1, last - 1));
      })
      .catch((e: unknown) => setError(errorText(e)));
  }, [runId, current]);

  useEffect(() => {
    if (!list || from === to) return setPair(null);
    const c = api();
    Promise.all([
      c.getPlanVersion(runId, from),
      c.getPlanVersion(runId, to),
      c.diffPlanVersions(runId, from, to),
    ])
      .then(([a, b, diff]) => setPair({ a, b, diff }))
      .catch((e: unknown) => setError(errorText(e)));
  }, [runId, list, from, to]);

  const rollback = async (version: number) => {
    setError(null);
    try {
      await api().rollback(runId, version);
      setError(null);
      // An ended run stays ended: the graph shows the restored version’s open steps, and nothing runs them until
      // Retry — without this, the rollback looked as if it had done nothing, or the run would resume.
      setNotice(
        ended
          ? `Rolled back to v${version}. The run stays ${ended}: Retry runs what this version leaves open.`
          : `Rolled back to v${version}.`,
      );
      onChanged();
    } catch (e) {
      setError(errorText(e));
    }
  };

  if (!list) return <p class="muted">{error ?? 'Loading versions…'}</p>;
  if (list.versions.length === 0)
    return <p class="muted">No plan version yet: the plan is being made, or planning failed.</p>;
  const options = list.versions.map((v) => (
    <option key={v.version} value={v.version}>
      v{v.version}
    </option>
  ));
  return (
    <section class="versions">
      <table>
        <thead>
          <tr>
            <th scope="col">Version</th>
            <th scope="col">Created (UTC)</th>
            <th scope="col">Reason</th>
            <th scope="col" />
          </tr>
        </thead>
        <tbody>
          {list.versions.map((v) => (
            <tr key={v.version} class={v.version === current ? 'current' : ''}>
              <td>v{v.version}</td>
              <td>{v.created_at.replace('T', ' ').slice(0, 19)}</td>
              <td>{v.reason ?? ''}</td>
              <td>
                {v.version === current ? (
                  <span class="muted">current</span>
                ) : canRollBack ? (
                  <button
                    type="button"
                    onClick={() => void rollback(v.version)}
                    aria-label={`Roll back to v${v.version}`}
                  >
                    Roll back
                  </button>
                ) : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <ErrorAlert text={error} />
      {notice ? (
        <p class="ok" role="status">
          {notice}
        </p>
      ) : null}
      {list.versions.length > 1 ? (
        <div class="diff-pick">
          Compare{' '}
          <select
            aria-label="From version"
            value={from}
            onChange={(e) => setFrom(Number((e.target as HTMLSelectElement).value))}
          >
            {options}
          </select>{' '}
          with{' '}
          <select
            aria-label="To version"
            value={to}
            onChange={(e) => setTo(Number((e.target as HTMLSelectElement).value))}
          >
            {options}
          </select>
        </div>
      ) : (
        <p class="muted">One version so far.</p>
      )}
      {pair ? <DiffView pair={pair} /> : null}
    </section>
  );
}

function DiffView({ pair }: { pair: Pair }) {
  const { a, b, diff } = pair;
  const removed = new Set(diff.removed);
  const added = new Set(diff.added.map((s) => s.id));
  const changed = new Map(diff.changed.map((c) => [c.step_id, c]));
  const line = (
    id: string,
    action: string | undefined,
    deps: string[] | null | undefined,
    side: 'a' | 'b',
  ) => {
    const cls =
      side === 'a'
        ? removed.has(id)
          ? 'removed'
          : changed.has(id)
            ? 'changed'
            : ''
        : added.has(id)
          ? 'added'
          : changed.has(id)
            ? 'changed'
            : '';
    const c = changed.get(id);
    return (
      <li key={id} class={cls} data-step-id={id} data-diff={cls || 'same'}>
        <code>{id}</code> <span class="muted">{action}</span>
        {deps?.length ? <span class="deps"> ← {deps.join(', ')}</span> : null}
        {c && side === 'b' ? (
          <span class="fields">
            {' '}
            ~ {Object.keys(c.fields).join(', ')}
            {c.dependencies_added.length ? ` +deps ${c.dependencies_added.join(',')}` : ''}
            {c.dependencies_removed.length ? ` −deps ${c.dependencies_removed.join(',')}` : ''}
          </span>
        ) : null}
      </li>
    );
  };
  return (
    <div class="diff" aria-label={`Diff of v${diff.from_version} and v${diff.to_version}`}>
      <div>
        <h2>v{diff.from_version}</h2>
        <ul>{a.steps.map((s) => line(s.id, s.action, s.dependencies, 'a'))}</ul>
      </div>
      <div>
        <h2>v{diff.to_version}</h2>
        <ul>{b.steps.map((s) => line(s.id, s.action, s.dependencies, 'b'))}</ul>
      </div>
      <p class="muted summary">
        {diff.added.length} added, {diff.removed.length} removed, {diff.changed.length} changed
        {diff.reordered ? ', reordered' : ''}
        {Object.keys(diff.fields).length ? `; plan fields: ${Object.keys(diff.fields).join(', ')}` : ''}
      </p>
    </div>
  );
}
