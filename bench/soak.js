#!/usr/bin/env node
'use strict';

// tier-bench-soak: each tier under steady load for minutes, its process
// tree's RSS sampled every second; passes when RSS grows less than 5%.
// In this repository: `node bench/soak.js --duration 10m` (`make soak`).
const fs = require('node:fs');
const path = require('node:path');
const { parseArgs } = require('node:util');
const { describeMachine } = require('./lib/machine');
const soakReport = require('./lib/soak-report');
const { soakTier, parseDuration, MAX_GROWTH } = require('./lib/soak');
const { loadConfig, tierOf, DEFAULT_CONFIG } = require('./lib/tier-config');

const USAGE = `Usage: tier-bench-soak [options]   (in this repository: node bench/soak.js)

Each tier alone under load for --duration; passes when its process tree's
RSS grows less than ${MAX_GROWTH * 100}% from the start of the measured window to its end.

  --config FILE      the service's tiers and request mix (default: ${DEFAULT_CONFIG})
  --tiers LIST       comma-separated (default: the configuration's soakTiers, else every tier)
  --duration D       how long each tier is measured, e.g. 10m or 90s (default: 10m)
  --warmup D         load before the first RSS sample (default: 60s)
  --connections N    concurrent connections (default: 100)
  --out DIR          where report.md, results.json and chart.svg go (default: bench/out/soak)`;

function parseOptions(argv) {
  const { values } = parseArgs({
    args: argv,
    options: {
      config: { type: 'string', default: DEFAULT_CONFIG },
      tiers: { type: 'string' },
      duration: { type: 'string', default: '10m' },
      warmup: { type: 'string', default: '60s' },
      connections: { type: 'string', default: '100' },
      out: { type: 'string', default: 'bench/out/soak' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return null;
  const config = loadConfig(values.config);
  const tiers = values.tiers
    ? values.tiers.split(',').filter(Boolean)
    : (config.soakTiers ?? config.tiers.map((t) => t.name));
  for (const t of tiers) tierOf(config, t);
  return {
    config,
    tiers,
    duration: parseDuration(values.duration),
    warmup: parseDuration(values.warmup),
    connections: Number(values.connections),
    paths: config.requests.paths,
    out: path.resolve(values.out),
    command: (
      `${path.basename(process.argv[1]) === 'soak.js' ? 'node bench/soak.js' : 'tier-bench-soak'} ` +
      `${process.argv.slice(2).join(' ')}`
    ).trim(),
  };
}

async function main() {
  let options;
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (err) {
    console.error(`soak: ${err.message}\n\n${USAGE}`);
    process.exit(2);
  }
  if (!options) return console.log(USAGE);
  const results = [];
  for (const tier of options.tiers) {
    const result = await soakTier(tier, {
      ...options,
      onProgress: ({ second, total, rps }) =>
        second <= total && process.stderr.write(`\r\x1b[Ksoak ${tier}: ${second}/${total} s, ${rps} req/s`),
    });
    const { startMB, endMB, growth } = result.rss;
    process.stderr.write(
      `\r\x1b[Ksoak ${tier}: RSS ${startMB.toFixed(1)} -> ${endMB.toFixed(1)} MB (${(growth * 100).toFixed(2)}%), ` +
        `${result.pass ? 'pass' : 'FAIL'}\n`,
    );
    results.push(result);
  }
  const { config } = options;
  const settings = {
    command: options.command,
    connections: options.connections,
    warmup: options.warmup,
    duration: options.duration,
    config: path.relative(process.cwd(), config.file),
    title: config.title,
    requests: { description: config.requests.description, paths: options.paths.length },
    notes: config.notes,
    date: new Date().toISOString().slice(0, 10),
  };
  const data = { results, settings, machine: describeMachine(process.execPath) };
  fs.mkdirSync(options.out, { recursive: true });
  fs.writeFileSync(path.join(options.out, 'results.json'), `${JSON.stringify(data, null, 2)}\n`);
  fs.writeFileSync(path.join(options.out, 'report.md'), soakReport.markdown(data));
  fs.writeFileSync(path.join(options.out, 'chart.svg'), soakReport.svg(results));
  console.log(soakReport.markdown(data));
  if (results.some((r) => !r.pass)) process.exitCode = 1;
}

main().catch((err) => {
  console.error(`soak: ${err.stack}`);
  process.exit(1);
});
