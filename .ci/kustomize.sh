#!/usr/bin/env bash
# Puts kustomize (built from the Go module proxy, cached in $SWITCHYARD_CACHE/bin) where the
# manifest tests find it (test/deploy/render.ts). Source it: `. .ci/kustomize.sh`.
KUSTOMIZE_VERSION="${KUSTOMIZE_VERSION:-v5.7.1}"
kustomize_bin="${SWITCHYARD_CACHE:-$HOME/.cache/switchyard}/bin"
kustomize_version=$("$kustomize_bin/kustomize" version 2>/dev/null)
if [[ "$kustomize_version" != *"${KUSTOMIZE_VERSION}"* ]]; then
  mkdir -p "$kustomize_bin"
  GOBIN="$kustomize_bin" GOFLAGS=-mod=mod go install "sigs.k8s.io/kustomize/kustomize/v5@${KUSTOMIZE_VERSION}" \
    || { echo "could not build kustomize ${KUSTOMIZE_VERSION}" >&2; return 1; }
fi
export KUSTOMIZE="$kustomize_bin/kustomize"
