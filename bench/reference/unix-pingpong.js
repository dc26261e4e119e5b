'use strict';

// The floor under every tier that calls another process (cli-pool, axum-proxy,
// axum-rpc): round trips of a 100-byte message between two Node processes
// over a Unix socket, one at a time, so each side sleeps while the other
// works. Usage: node bench/reference/unix-pingpong.js [round trips]
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { fork } = require('node:child_process');

if (process.argv[2] === '--echo') {
  net
    .createServer((socket) => socket.on('data', (data) => socket.write(data)))
    .listen(process.argv[3], () => process.send('ready'));
} else {
  const rounds = Number(process.argv[2] ?? 20_000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pingpong-'));
  const where = path.join(dir, 'echo.sock');
  const echo = fork(__filename, ['--echo', where]);
  echo.once('message', () => {
    const socket = net.connect(where);
    const message = Buffer.alloc(100);
    const micros = [];
    let sentAt;
    const send = () => {
      sentAt = process.hrtime.bigint();
      socket.write(message);
    };
    let received = 0;
    socket.on('data', (chunk) => {
      received += chunk.length;
      if (received < message.length) return;
      received = 0;
      micros.push(Number(process.hrtime.bigint() - sentAt) / 1000);
      if (micros.length < rounds) return send();
      micros.sort((a, b) => a - b);
      const at = (q) => micros[Math.floor(q * (micros.length - 1))].toFixed(1);
      const mean = (micros.reduce((a, b) => a + b, 0) / micros.length).toFixed(1);
      console.log(
        `${rounds} round trips of ${message.length} B over a Unix socket (Node ${process.version}): ` +
          `p10 ${at(0.1)} us, p50 ${at(0.5)} us, p90 ${at(0.9)} us, mean ${mean} us`,
      );
      socket.destroy();
      echo.kill();
      fs.rmSync(dir, { recursive: true, force: true });
    });
    socket.on('connect', send);
  });
}
