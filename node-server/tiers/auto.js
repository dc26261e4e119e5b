'use strict';

// Tier `auto`: the first of napi, wasm, js whose artifacts load on this
// machine, so one deployment runs everywhere and is fastest where it can be.
// The created tier's `name` says which one runs (/healthz reports it).
const CHOICES = ['napi', 'wasm', 'js'];

async function createTier(options = {}, { log = options.log?.info ?? console.error } = {}) {
  const reasons = [];
  for (const name of CHOICES) {
    try {
      const tier = await require(`./${name}`).createTier(options);
      const why = reasons.length ? ` (${reasons.join('; ')})` : '';
      log(`node-server: tier auto runs ${name}${why}`);
      return Object.assign(tier, { name });
    } catch (err) {
      reasons.push(`${name} unavailable: ${err.message.split('\n')[0]}`);
    }
  }
  throw new Error(`tier auto: nothing loads (${reasons.join('; ')})`);
}

module.exports = { createTier };
