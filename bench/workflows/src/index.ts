/**
 * A Workflow running the bench's workloads: `layers` layers of `width` steps each sleeping `ms`
 * (every step of a layer after the whole previous one, as edgeplan's bench DAG), or a chain of `chain`
 * instant steps. `POST /runs` starts one (`{id}`), `GET /runs/:id` reads its status.
 */
import { WorkflowEntrypoint, type WorkflowEvent, type WorkflowStep } from 'cloudflare:workers';

type Params = { layers?: number; width?: number; ms?: number; chain?: number };
type Env = { DAG: Workflow<Params> };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class DagWorkflow extends WorkflowEntrypoint<Env, Params> {
  override async run(event: WorkflowEvent<Params>, step: WorkflowStep) {
    const { layers = 0, width = 0, ms = 0, chain = 0 } = event.payload;
    for (let i = 0; i < chain; i++) await step.do(`c${i}`, () => Promise.resolve(i));
    for (let l = 0; l < layers; l++) {
      await Promise.all(
        Array.from({ length: width }, (_, w) =>
          step.do(`s${l}_${w}`, async () => {
            await sleep(ms);
            return w;
          }),
        ),
      );
    }
    return 'done';
  }
}

export default {
  async fetch(req: Request, env: Env): Promise<Response> {
    const url = new URL(req.url);
    if (url.pathname === '/health') return new Response('ok');
    if (req.method === 'POST' && url.pathname === '/runs') {
      const instance = await env.DAG.create({ params: await req.json<Params>() });
      return Response.json({ id: instance.id });
    }
    const m = /^\/runs\/([^/]+)$/.exec(url.pathname);
    if (m) return Response.json(await (await env.DAG.get(m[1]!)).status());
    return new Response('not found', { status: 404 });
  },
};
