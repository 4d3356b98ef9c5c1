#!/bin/sh
# Renders every *.tmpl.yaml of the application folder with envsubst,
# substituting only the variables it names: parameter values are data and
# are never run. A template that uses any other variable is an error, not a
# silently empty value.
set -eu
# ARGOCD_APP_PARAMETERS is JSON: a list, or null when the application sets
# no parameter (certify's "defaults" sample caught that).
param() {
  printf '%s' "${ARGOCD_APP_PARAMETERS:-[]}" | jq -r --arg n "$1" '(. // [])[] | select(.name == $n) | .string // empty'
}
REPLICAS=$(param replicas)
GREETING=$(param greeting)
export REPLICAS="${REPLICAS:-1}" GREETING="${GREETING:-hello}"
found=0
for f in *.tmpl.yaml; do
  [ -e "$f" ] || continue
  found=1
  out=$(envsubst '$REPLICAS $GREETING' < "$f")
  if printf '%s\n' "$out" | grep -q '\${'; then
    echo "render.sh: $f uses a variable other than REPLICAS and GREETING" >&2
    exit 1
  fi
  printf -- '---\n%s\n' "$out"
done
if [ "$found" = 0 ]; then
  echo "render.sh: no *.tmpl.yaml in the application folder" >&2
  exit 1
fi
