#!/bin/sh
# Renders every *.tmpl.yaml of the application folder with envsubst,
# substituting only the variables it names: parameter values are data and
# are never run. A template that uses any other variable is an error, not a
# silently empty value. GREETING is substituted as a JSON string (a YAML
# double-quoted scalar), so any text arrives intact: quotes, ': ', newlines
# (certify's PLUG-014 caught the first version, which pasted it raw into
# quotes). REPLICAS must be a whole number, or the plugin says so.
set -eu
# ARGOCD_APP_PARAMETERS is JSON: a list, or null when the application sets
# no parameter (certify's "defaults" sample caught that).
param() {
  printf '%s' "${ARGOCD_APP_PARAMETERS:-[]}" | jq -r --arg n "$1" '(. // [])[] | select(.name == $n) | .string // empty'
}
REPLICAS=$(param replicas)
GREETING=$(param greeting)
REPLICAS="${REPLICAS:-1}"
case "$REPLICAS" in
  ''|*[!0-9]*) echo "render.sh: replicas must be a whole number, not '$REPLICAS'" >&2; exit 1 ;;
esac
# param strips the trailing newlines of a value as $(...) does: read it
# whole instead, as JSON.
GREETING=$(printf '%s' "${ARGOCD_APP_PARAMETERS:-[]}" | jq -c '[(. // [])[] | select(.name == "greeting") | .string // empty][0] // "hello"')
export REPLICAS GREETING
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
