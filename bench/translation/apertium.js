#!/usr/bin/env node
/**
 * Offline translation benchmark: the content service's Apertium model (the local `apertium`
 * command; build first with `npx tsc -b services/content`). Translates a text of --kb kilobytes
 * (default 30) en -> es directly and en -> fr through Spanish, --runs times each (default 3), with
 * --concurrency translations at once (default 1). Reports characters/s per route and the event
 * loop delay (p50/p99/max, perf_hooks) while the translations run: the engine is a child process,
 * so the loop should stay free. Figures only, no assertions.
 *
 *   node bench/translation/apertium.js [--kb 30] [--runs 3] [--concurrency 1]
 */
'use strict';
const path = require('node:path');
const { monitorEventLoopDelay } = require('node:perf_hooks');
const ROOT = path.resolve(__dirname, '../..');
const { ApertiumModel } = require(
  path.join(ROOT, 'services/content/dist/src/models/apertium/apertium-model.js'),
);
const { CommandEngine } = require(
  path.join(ROOT, 'services/content/dist/src/models/apertium/command-engine.js'),
);

function option(name, fallback) {
  const index = process.argv.indexOf(`--${name}`);
  return index === -1 ? fallback : Number(process.argv[index + 1]);
}

const KB = option('kb', 30);
const RUNS = option('runs', 3);
const CONCURRENCY = option('concurrency', 1);

const SENTENCES = [
  'The small dog runs in the green park every morning.',
  'Our new kettle boils water in two minutes and keeps it warm for an hour.',
  'The children read books in the old library after school.',
  'Please send the invoice to the finance team before the end of the month.',
];

function textOf(kb) {
  const lines = [];
  for (let i = 0, size = 0; size < kb * 1024; i++) {
    const line = `${SENTENCES[i % SENTENCES.length]} ${SENTENCES[(i + 1) % SENTENCES.length]}`;
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join('\n');
}

async function route(model, text, source, target) {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const started = performance.now();
  let last;
  for (let run = 0; run < RUNS; run++) {
    const batch = Array.from({ length: CONCURRENCY }, () =>
      model.translate({ text, sourceLanguage: source, targetLanguage: target }),
    );
    last = (await Promise.all(batch))[0];
  }
  const seconds = (performance.now() - started) / 1000;
  delay.disable();
  const ms = (ns) => (ns / 1e6).toFixed(1);
  const chars = text.length * RUNS * CONCURRENCY;
  console.log(
    `${source} -> ${target} (route ${last.route.languages.join(' -> ')}): ${RUNS * CONCURRENCY} x ${text.length} chars in ${seconds.toFixed(2)} s = ` +
      `${Math.round(chars / seconds)} chars/s; event loop delay p50 ${ms(delay.percentile(50))} ms, p99 ${ms(delay.percentile(99))} ms, max ${ms(delay.max)} ms`,
  );
}

async function main() {
  const model = await ApertiumModel.discover({
    id: 'apertium',
    aliases: [],
    fallback: [],
    engine: new CommandEngine(),
    timeoutMs: 600_000,
    maxConcurrency: CONCURRENCY,
  });
  console.log(
    `pairs: ${model.info.translationPairs.join(', ')}; ${KB} KB text, ${RUNS} runs, concurrency ${CONCURRENCY}`,
  );
  const text = textOf(KB);
  await route(model, text, 'en', 'es');
  await route(model, text, 'en', 'fr');
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
