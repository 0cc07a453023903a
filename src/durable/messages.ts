/** The message a ready step sends through the `steps` queue. */
export type StepMessage = {
  run_id: string;
  step_id: string;
  attempt: number;
  plan_version: number;
};
