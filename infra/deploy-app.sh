#!/bin/sh
# Writes the production deployment of one World service to OUT (infra/Dockerfile runs it; the
# deploy test runs it too): OUT/dist (built beforehand), OUT/drizzle (the service's migrations,
# found next to dist/ at run time), OUT/package.json and OUT/node_modules holding only production
# dependencies, the workspace packages injected as copies (pnpm deploy), so `node dist/main.js`
# runs from OUT alone. Sources, tests and tool configuration are removed afterwards.
#
# usage: sh infra/deploy-app.sh <gateway|planner|broker|ledger> <OUT>   (from the repository root,
# after `pnpm exec turbo run build --filter=@world/<app>...`)
set -eu

app="${1:-}"
out="${2:-}"
case "$app" in
  gateway | planner | broker | ledger) ;;
  *)
    echo "deploy-app: the app must be gateway, planner, broker or ledger (got \"$app\")" >&2
    exit 2
    ;;
esac
if [ -z "$out" ]; then
  echo "deploy-app: missing the output directory" >&2
  exit 2
fi
if [ ! -f "apps/$app/dist/main.js" ]; then
  echo "deploy-app: apps/$app/dist/main.js is missing; build first: pnpm exec turbo run build --filter=@world/$app..." >&2
  exit 2
fi

rm -rf "$out"
pnpm --filter "@world/$app" deploy --prod "$out"
rm -rf "$out/src" "$out/test" "$out/.turbo" "$out/.world" "$out/jest.config.js" "$out/drizzle.config.ts" \
  "$out"/tsconfig*.json
