/**
 * `plan.execute`'s subtask executor: the action (and its `with:`) a subtask that names none runs
 * with — for a TEA workflow, kept as written and rendered per subtask in the child run.
 */
import type { Plan } from '../plan/model';
import { settingsEnvNames } from '../plan/tea-settings';
import type { TeaSubtask } from './subtask-plans';

const DEFAULT_SUBTASK_MESSAGES = [
  {
    role: 'system',
    content:
      'You are executing a subtask as part of a larger plan. Complete the subtask and return a useful result.',
  },
  {
    role: 'user',
    content:
      "Subtask: {{ subtask.description }}{% for id, r in subtask.results.items() %}\nResult from '{{ id }}': {{ (r | string)[:500] }}{% endfor %}",
  },
];

/**
 * Steps that name no action run with the subtask executor. With a TEA workflow's executor, its `with:`
 * is kept as written and rendered per subtask in the child run (`subtask.*`, `state.subtask_results`);
 * otherwise the description is the prompt.
 */
export function applyExecutor(
  plan: Plan,
  exec: { action: string; with?: Record<string, unknown> | undefined },
  workflow:
    { variables?: Record<string, unknown> | null; settings?: Record<string, unknown> | null } | undefined,
  preserved: Record<string, unknown>[],
): unknown {
  const { subtasks: _subtasks, ...rest } = plan as Plan & { subtasks?: unknown };
  if (workflow === undefined) {
    return {
      ...rest,
      steps: plan.steps.map((s) =>
        s.action === undefined
          ? { ...s, action: exec.action, parameters: { ...exec.with, prompt: String(s.description ?? s.id) } }
          : s,
      ),
    };
  }
  const params: Record<string, Record<string, unknown>> = {};
  const withParams = exec.with ?? {};
  // TEA's default llm.call executor messages (planning_actions.py _execute_subtask).
  const executorParams =
    exec.action === 'llm.call' && withParams.messages === undefined && withParams.prompt === undefined
      ? { ...withParams, messages: DEFAULT_SUBTASK_MESSAGES }
      : withParams;
  const steps = plan.steps.map(
    ({ given_dependencies: _given, ...s }: Plan['steps'][number] & { given_dependencies?: string[] }) => {
      if (s.action !== undefined && s.action !== exec.action) return s;
      params[s.id] = executorParams;
      return { ...s, action: exec.action, parameters: {} };
    },
  );
  const tea = {
    subtasks: true,
    params,
    variables: workflow.variables ?? {},
    settings: workflow.settings ?? {},
    env_names: settingsEnvNames(workflow.settings ?? {}),
    preserved,
    dependencies: Object.fromEntries(
      plan.steps.map((s) => [
        s.id,
        (s as TeaSubtask & { given_dependencies?: string[] }).given_dependencies ?? s.dependencies,
      ]),
    ),
  };
  // TEA's strategy shapes the decomposition only; plan.execute runs the subtasks as a DAG.
  return {
    ...rest,
    strategy: 'flat',
    steps,
    metadata: { ...rest.metadata, tea, decomposed_as: rest.strategy },
  };
}
