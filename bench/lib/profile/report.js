'use strict';

// tier-bench-profile's report.md: the verdict first, then the figures it
// stands on.

const pct = (x) => `${(x * 100).toFixed(1)}%`;
const us = (x) => (Number.isFinite(x) ? x.toFixed(1) : 'n/a');
const x = (r) => (Number.isFinite(r) ? `${r.toFixed(2)}x` : 'n/a');
const row = (cells) => `| ${cells.join(' | ')} |`;

function renderReport(r) {
  const { measured: m, prediction: p, attribution: a, calibration: c } = r;
  const fn = `\`${r.function.file}#${r.function.name}\``;
  const out = [`# Should ${fn} move to Rust?`, '', ...r.verdict.map((l) => `- ${l}`), ''];
  out.push(
    `Measured in ${r.seconds.toFixed(0)} s on Node ${r.node}, ${m.cores} cores: ` +
      `\`${r.command.join(' ')}\` at saturation, ` +
      `${m.windows.js.length} windows as it is and as many in each of ${m.freeLaunches.length} launches with the ` +
      `function answering from memory (${pct(m.freeHitRate)} of its calls answered so), in rotation; medians, ` +
      'the fastest launch as ' +
      '"function free".' +
      (r.rendered ? ` The prediction was rendered again on ${r.rendered.slice(0, 10)} from these figures.` : ''),
    '',
  );
  out.push('## What a port can buy', '');
  out.push(
    'Ratios to the service as it is; higher is better. "at most": the Rust side costs nothing, only the boundary. ' +
      '"if no faster": Rust takes as much CPU as the JavaScript did. Each includes the rung\'s boundary cost for the ' +
      'sizes the function saw, measured on this machine through a prebuilt identity. At most, rungs that run the ' +
      'function off the event loop use the other cores for req/s; their floors claim no other core, and the hop ' +
      'costs a served request more than the calibration sees (docs/prediction.md).',
    '',
  );
  const header = [
    'rung',
    'runs on',
    'req/s at most',
    'CPU per request at most',
    'req/s if no faster',
    'CPU per request if no faster',
    'boundary us/request (main thread, total)',
  ];
  out.push(row(header), '|---|---|---:|---:|---:|---:|---:|');
  const free = ['function free (no boundary)', 'the event loop', x(p.free.rps), x(p.free.cpu), '1.00x', '1.00x'];
  out.push(row([...free, '0.0, 0.0']));
  for (const t of p.tiers) {
    const boundary = `${us(t.boundaryUsPerRequest.main)}, ${us(t.boundaryUsPerRequest.total)}`;
    out.push(row([t.name, t.runs, x(t.ceiling.rps), x(t.ceiling.cpu), x(t.floor.rps), x(t.floor.cpu), boundary]));
  }
  out.push('', '## The function', '');
  const f = p.function;
  out.push(
    row([
      'share of CPU per request',
      'CPU us per request',
      'calls per request',
      'CPU us per call',
      'input bytes',
      'output bytes',
    ]),
    '|---:|---:|---:|---:|---:|---:|',
  );
  const span = (key) => {
    const v = m.sizes.map((s) => s[key]);
    return v.length ? `${Math.min(...v)}-${Math.max(...v)}` : 'n/a';
  };
  const calls = f.callsPerRequest.toFixed(2);
  out.push(row([pct(f.share), us(f.cpuUs), calls, us(f.cpuUsPerCall), span('input'), span('output')]));
  const columns = [
    'service',
    'req/s',
    'CPU us per request',
    'main thread us per request',
    'load generator us per request',
  ];
  out.push('', row(columns));
  out.push('|---|---:|---:|---:|---:|');
  const launches = m.freeLaunches.map((w, i) => [`function free, launch ${i + 1}`, w]);
  for (const [label, w] of [['as it is', m.js], ...launches]) {
    out.push(`| ${label} | ${w.rps.toFixed(0)} | ${us(w.cpuUs)} | ${us(w.mainUs)} | ${us(w.generatorUs)} |`);
  }
  out.push('', '## Where the main thread spends its time', '');
  out.push(`V8's CPU profiler, ${a.samples} busy samples of the service as it is; shares of the busy time.`, '');
  out.push('| what | self | inclusive |', '|---|---:|---:|');
  for (const g of a.groups) out.push(`| ${g.group} | ${pct(g.self)} | ${pct(g.inclusive)} |`);
  out.push('', "The service's own functions:", '');
  out.push('| function | file:line | self | inclusive |', '|---|---|---:|---:|');
  for (const g of a.functions) out.push(`| ${g.name} | ${g.file}:${g.line} | ${pct(g.self)} | ${pct(g.inclusive)} |`);
  out.push('', '## Boundary calibration', '');
  const sizes = m.sizes.map((s) => `${s.input}/${s.output}`).join(', ');
  out.push(
    `Each rung's identity, called with input and output sizes of ${sizes} ` +
      'bytes ' +
      `on Node ${c.node}; per call, net of the same identity in JavaScript.`,
    '',
  );
  out.push('| rung | main thread us per call | total us per call | calls |', '|---|---:|---:|---:|');
  for (const [name, t] of Object.entries(c.tiers)) {
    if (t.skipped) out.push(`| ${name} | skipped: ${t.skipped} | | |`);
    else out.push(`| ${name} | ${us(t.boundaryMainUs)} | ${us(t.boundaryTotalUs)} | ${t.calls} |`);
  }
  return `${out.join('\n')}\n`;
}

module.exports = { renderReport };
