#!/usr/bin/env node
// Generates TypeScript types for every .proto under proto/ into shared/src/generated.
// The one place message shapes come from: services import these, never hand-written copies.
'use strict';
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..', '..');
const protoDir = path.join(root, 'proto');
const outDir = path.join(root, 'shared', 'src', 'generated');

function listProtos(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return listProtos(full);
    return entry.name.endsWith('.proto') ? [path.relative(protoDir, full)] : [];
  });
}

fs.rmSync(outDir, { recursive: true, force: true });
const bin = require.resolve('@grpc/proto-loader/build/bin/proto-loader-gen-types.js');
execFileSync(
  process.execPath,
  [
    bin,
    '--keepCase',
    '--longs=Number',
    '--enums=String',
    '--defaults',
    '--oneofs',
    '--grpcLib=@grpc/grpc-js',
    `--includeDirs=${protoDir}`,
    `--outDir=${outDir}`,
    ...listProtos(protoDir),
  ],
  { stdio: 'inherit', cwd: protoDir },
);
console.log(`gen:proto: types for ${listProtos(protoDir).length} proto files in ${path.relative(root, outDir)}`);
