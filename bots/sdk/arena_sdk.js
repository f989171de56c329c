// Arena's JavaScript SDK for bots (Node.js): write act(observation, legal), call run(act).
//
//     const arena = require("arena_sdk");
//     arena.run((observation, legal) => legal[0]);
//
// run() speaks the JSON-lines wire protocol on stdin/stdout (docs/bots.md) so you never see
// it: it answers "start" with "ready" (calling onStart(info) first if you pass one), each
// "act" with {"type": "action", "action": act(observation, legal)}, and returns after "end"
// (calling onEnd(result) if given). While act runs, arena.clock holds {move_ms, bank_ms}
// and arena.info the "start" message. act may return a value or a Promise of one.
// Log with arena.log(...): it writes to stderr; stdout belongs to the protocol.
// Node's standard library only, so it runs inside the sandbox, where it is found as
// require("arena_sdk") (NODE_PATH=/sdk); locally, require it by its path.
"use strict";

const readline = require("readline");

const sdk = { clock: {}, info: {}, log, run };

function log(...args) {
  process.stderr.write(args.map(String).join(" ") + "\n");
}

function send(message) {
  process.stdout.write(JSON.stringify(message) + "\n");
}

function run(act, { onStart, onEnd } = {}) {
  const lines = readline.createInterface({ input: process.stdin, terminal: false });
  // Messages are handled one at a time, in order, even when act returns a Promise.
  let queue = Promise.resolve();
  return new Promise((resolve) => {
    lines.on("line", (line) => {
      queue = queue.then(() => handle(JSON.parse(line))).catch((error) => {
        log(error && error.stack ? error.stack : String(error));
        process.exit(1);
      });
    });
    lines.on("close", () => queue.then(resolve));

    async function handle(message) {
      if (message.type === "start") {
        sdk.info = message;
        sdk.clock = message.clock || {};
        if (onStart) await onStart(message);
        send({ type: "ready" });
      } else if (message.type === "act") {
        sdk.clock = message.clock || {};
        send({ type: "action", action: await act(message.observation, message.legal) });
      } else if (message.type === "end") {
        if (onEnd) await onEnd(message.result || {});
        lines.close();
      }
    }
  });
}

module.exports = sdk;
