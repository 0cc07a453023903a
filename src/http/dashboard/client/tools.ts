/** Browser code: the registered tools (`GET /v1/tools`) with their JSON schemas. */
export const TOOLS_JS = String.raw`
async function loadTools() {
  const r = await api('GET', '/v1/tools');
  const list = $('tools-list');
  if (!r.ok) {
    setText($('tools-count'), '');
    show(list, h('li', null, errorBox(r.error, r.status, 'Loading tools')));
    return;
  }
  const tools = Array.isArray(r.data.tools) ? r.data.tools : [];
  setText($('tools-count'), '(' + tools.length + ')');
  list.replaceChildren(
    ...tools.map((t) =>
      h(
        'li',
        null,
        h(
          'details',
          null,
          h(
            'summary',
            null,
            h('code', { class: 'code' }, t.name),
            ' v' + t.version,
            t.idempotent ? h('span', { class: 'tag' }, 'idempotent') : null,
            t.deterministic ? h('span', { class: 'tag' }, 'deterministic') : null,
          ),
          h('p', null, t.description),
          h('p', { class: 'muted' }, 'Input schema'),
          h('pre', null, pretty(t.input_schema)),
          t.output_schema !== undefined ? [h('p', { class: 'muted' }, 'Output schema'), h('pre', null, pretty(t.output_schema))] : null,
        ),
      ),
    ),
  );
}
`;
