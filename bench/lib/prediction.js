'use strict';

// tier-bench-profile's prediction (its profile.json), read for the
// benchmark's report: for each rung, its range and the measured tiers of
// another name that make the same hop (`alike`).
const fs = require('node:fs');
const path = require('node:path');

/**
 * From `file` (--prediction, which must exist), else the configuration's
 * `prediction` file where it exists; null when there is neither.
 * @param {string | undefined} file @param {{ file: string, prediction?: string }} config
 */
function readPrediction(file, config) {
  const fromConfig = config.prediction && path.resolve(path.dirname(config.file), config.prediction);
  const chosen = file ? path.resolve(file) : fromConfig && fs.existsSync(fromConfig) ? fromConfig : null;
  if (!chosen) return null;
  const profile = JSON.parse(fs.readFileSync(chosen, 'utf8'));
  if (!profile.prediction?.tiers) throw new Error(`${chosen}: not a profile.json of tier-bench-profile`);
  const { file: fnFile, name } = profile.function;
  const tiers = profile.prediction.tiers.map(({ name: tier, ceiling, floor, alike }) => ({
    name: tier,
    ceiling,
    floor,
    alike,
  }));
  return { function: `${fnFile}#${name}`, finished: profile.finished, tiers };
}

module.exports = { readPrediction };
