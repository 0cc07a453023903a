// `npm run fake-llm -- plan.json`: a stand-in for the planner's LLM, to try goal runs without a model.
// An OpenAI-compatible Chat Completions endpoint on loopback that answers every call with the plan in
// the file (each step with its `dependencies`, `[]` when none: a model's plan must list them) — whole,
// or as one server-sent chunk when asked to stream (a goal run that needs no approval streams its plan).
// The file is read at each call: edit it between runs. Point the Worker at it in .dev.vars
// (OPENAI_BASE_URL=http://127.0.0.1:8795/v1, OPENAI_API_KEY=fake) and restart `npm start`.
// PORT=… listens elsewhere (0: any free port); the first line printed names the URL.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import process from 'node:process';

const file = process.argv[2] ?? 'plan.json';
const port = Number(process.env.PORT ?? 8795);
readFileSync(file, 'utf8'); // a missing file stops here, not at the first call

const server = createServer((req, res) => {
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    const content = readFileSync(file, 'utf8');
    const base = { id: 'fake', created: Math.floor(Date.now() / 1000), model: 'fake' };
    let stream = false;
    try {
      stream = JSON.parse(body || '{}').stream === true;
    } catch {
      // Not JSON: answered whole, as any call.
    }
    if (!stream) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          ...base,
          object: 'chat.completion',
          choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
        }),
      );
      return;
    }
    const chunk = {
      ...base,
      object: 'chat.completion.chunk',
      choices: [{ index: 0, delta: { role: 'assistant', content }, finish_reason: 'stop' }],
    };
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(`data: ${JSON.stringify(chunk)}\n\ndata: [DONE]\n\n`);
  });
});
server.listen(port, '127.0.0.1', () => {
  console.log(`fake LLM on http://127.0.0.1:${server.address().port}/v1, answering with ${file}`);
});
