// The ES module entry: the CommonJS one's exports by name.
import bench from './index.js';

export const { defineConfig, loadConfig, tierOf, startTier, startServer, tierCommand, READY_LINE, calibrate } = bench;
