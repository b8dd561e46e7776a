#!/usr/bin/env bash
# Moves every function of a naaba region to fresh containers, now, without a deploy and without
# changing the code that serves (docs/runbook.md, "Recycle the containers"; decisions 0092, 0132).
# API Gateway invokes the MCP function and the authorizer through their alias `live`. For each, the
# version `live` points at is compared with $LATEST (code, runtime, handler, memory, timeout,
# environment, layers): if they differ — after "Roll the code back by hand", `live` is the good
# version and $LATEST still the bad one — nothing is changed, for any function, and the differences
# are named. If they are the same, a configuration change of $LATEST (its description) makes Lambda
# publish a new version of that same code (`--code-sha256` pins it), and `live` is pointed at it
# directly — not through CodeDeploy, so alarms that fire cannot stop it. The sweeper is invoked as
# $LATEST: the configuration change is enough. New containers read their secret when they start.
#
#   bin/ops/recycle-containers.sh naaba-eu-central-1 [--region eu-central-1]
#
# Needs the AWS CLI with cloudformation:DescribeStacks, lambda:GetAlias, GetFunctionConfiguration,
# UpdateFunctionConfiguration, PublishVersion and UpdateAlias on the stack's functions.
# The next `cdk deploy` puts $LATEST's description back and moves `live` to what it deploys.
set -euo pipefail

stack="${1:?usage: recycle-containers.sh STACK [--region REGION]}"
shift
region_args=()
if [[ "${1:-}" == "--region" ]]; then region_args=(--region "${2:?--region needs a value}"); fi

aws_() { aws "${region_args[@]}" "$@"; }
output() {
  aws_ cloudformation describe-stacks --stack-name "$stack" \
    --query "Stacks[0].Outputs[?OutputKey=='$1'].OutputValue" --output text
}
stamp="$(date -u +%Y-%m-%dT%H:%M:%SZ)"

# What makes a version serve differently from another: compared between `live` and $LATEST.
FIELDS=(CodeSha256 Runtime Handler MemorySize Timeout Environment.Variables Layers)
field() { # FUNCTION QUALIFIER FIELD
  local qualifier=()
  [[ "$2" == '$LATEST' ]] || qualifier=(--qualifier "$2")
  aws_ lambda get-function-configuration --function-name "$1" "${qualifier[@]}" --query "$3" --output json
}

# A new description is a configuration change: Lambda publishes a version only when something changed.
touch_latest() {
  local fn="$1" described
  described="$(aws_ lambda get-function-configuration --function-name "$fn" --query Description --output text)"
  described="${described%% (recycled *}"
  aws_ lambda update-function-configuration --function-name "$fn" \
    --description "${described} (recycled ${stamp})" --query LastUpdateStatus --output text >/dev/null
  aws_ lambda wait function-updated-v2 --function-name "$fn"
}

# First every aliased function is checked; nothing changes unless all can be recycled as they serve.
aliased=()
live_versions=()
live_code=()
refusals=()
for key in McpFunctionName AuthorizerFunctionName; do
  fn="$(output "$key")"
  live="$(aws_ lambda get-alias --function-name "$fn" --name live --query FunctionVersion --output text)"
  differences=()
  for f in "${FIELDS[@]}"; do
    served="$(field "$fn" "$live" "$f")"
    latest="$(field "$fn" '$LATEST' "$f")"
    if [[ "$served" != "$latest" ]]; then differences+=("$f: live ${served} vs \$LATEST ${latest}"); fi
  done
  if ((${#differences[@]} > 0)); then
    refusals+=("$fn: live is version $live, and \$LATEST differs from it:")
    for d in "${differences[@]}"; do refusals+=("  $d"); done
  fi
  aliased+=("$fn")
  live_versions+=("$live")
  live_code+=("$(field "$fn" "$live" CodeSha256 | tr -d '"')")
done

if ((${#refusals[@]} > 0)); then
  {
    echo "refused: recycling publishes \$LATEST, which would change the code that serves. Nothing was changed."
    printf '%s\n' "${refusals[@]}"
    echo "To recycle the code live serves, deploy it (cdk deploy of that release), or move live by hand to a"
    echo "new version of it (docs/runbook.md, \"Roll the code back by hand\"), which starts fresh containers too."
  } >&2
  exit 1
fi

for i in "${!aliased[@]}"; do
  fn="${aliased[$i]}"
  touch_latest "$fn"
  version="$(aws_ lambda publish-version --function-name "$fn" --code-sha256 "${live_code[$i]}" \
    --description "recycled ${stamp}" --query Version --output text)"
  aws_ lambda update-alias --function-name "$fn" --name live --function-version "$version" --query FunctionVersion --output text >/dev/null
  echo "$fn: live -> version $version (the code of version ${live_versions[$i]}, sha256 ${live_code[$i]}), on fresh containers"
done

fn="$(output SweeperFunctionName)"
touch_latest "$fn"
echo "$fn: \$LATEST updated (same code), on fresh containers"
