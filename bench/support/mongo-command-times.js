'use strict';
/**
 * Preload that times every MongoDB command a process sends, for finding which queries a load
 * waits on (a filter the server cannot serve from an index scans the collection):
 *
 *   MONGO_COMMAND_TIMES_DIR=<dir> NODE_OPTIONS="--require $PWD/bench/support/mongo-command-times.js" \
 *     node bench/gateway/run.js --mode stack --only "assistant chat" --connections 32
 *
 * Each process writes DIR/<pid>-<service>.txt every 2 s and at exit: count, mean ms, max ms,
 * command, collection and the filter's field names (never values), slowest total first.
 */
const fs = require('node:fs');
const path = require('node:path');
const Module = require('node:module');

const dir =
  process.env.MONGO_COMMAND_TIMES_DIR ||
  path.join(require('node:os').tmpdir(), 'mongo-command-times');
const totals = new Map();
const originalRequire = Module.prototype.require;
let patched = false;

/** The filter of a command, whichever field the command keeps it in. */
function filterOf(command) {
  return command.filter ?? command.query ?? command.updates?.[0]?.q ?? command.deletes?.[0]?.q;
}

function labelOf(event) {
  const collection = event.command[event.commandName];
  const filter = filterOf(event.command);
  return [
    event.commandName,
    typeof collection === 'string' ? collection : '',
    filter ? Object.keys(filter).join(',') : '',
  ].join(' ');
}

function monitor(client) {
  const pending = new Map();
  client.on('commandStarted', (event) => pending.set(event.requestId, labelOf(event)));
  const finished = (event) => {
    const label = pending.get(event.requestId) ?? event.commandName;
    pending.delete(event.requestId);
    const total = totals.get(label) ?? { count: 0, ms: 0, max: 0 };
    total.count += 1;
    total.ms += event.duration;
    total.max = Math.max(total.max, event.duration);
    totals.set(label, total);
  };
  client.on('commandSucceeded', finished);
  client.on('commandFailed', finished);
}

Module.prototype.require = function require(id) {
  const exported = originalRequire.apply(this, arguments);
  if (id === 'mongodb' && !patched && exported.MongoClient) {
    patched = true;
    const connect = exported.MongoClient.prototype.connect;
    exported.MongoClient.prototype.connect = function connectMonitored() {
      if (!this.monitored) {
        this.monitored = true;
        this.options.monitorCommands = true;
        this.monitorCommands = true;
        monitor(this);
      }
      return connect.apply(this, arguments);
    };
  }
  return exported;
};

function write() {
  if (totals.size === 0) return;
  const service = path.basename(path.resolve(process.argv[1] ?? 'node', '../../..'));
  const lines = [...totals]
    .sort((a, b) => b[1].ms - a[1].ms)
    .map(
      ([label, t]) => `${t.count}\t${(t.ms / t.count).toFixed(2)}\t${t.max.toFixed(0)}\t${label}`,
    );
  fs.writeFileSync(
    path.join(dir, `${process.pid}-${service}.txt`),
    `count\tmean ms\tmax ms\tcommand collection filter\n${lines.join('\n')}\n`,
  );
}

fs.mkdirSync(dir, { recursive: true });
process.on('exit', write);
setInterval(write, 2000).unref();
