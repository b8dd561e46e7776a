#!/usr/bin/env bash
# Moves every function of a naaba region to fresh containers, now, without a deploy
# (docs/runbook.md, "Recycle the containers"; decision 0092). API Gateway invokes the MCP function
# and the authorizer through their alias `live`: for each, a configuration change of $LATEST (its
# description) makes Lambda publish a new version, and `live` is pointed at it directly — not
# through CodeDeploy, so alarms that fire cannot stop it. The sweeper is invoked as $LATEST: the
# configuration change is enough. Containers of the new versions read their secret when they start.
#
#   bin/ops/recycle-containers.sh naaba-eu-central-1 [--region eu-central-1]
#
# Needs the AWS CLI with cloudformation:DescribeStacks, lambda:GetFunctionConfiguration,
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

# A new description is a configuration change: Lambda publishes a version only when something changed.
touch_latest() {
  local fn="$1" described
  described="$(aws_ lambda get-function-configuration --function-name "$fn" --query Description --output text)"
  described="${described%% (recycled *}"
  aws_ lambda update-function-configuration --function-name "$fn" \
    --description "${described} (recycled ${stamp})" --query LastUpdateStatus --output text >/dev/null
  aws_ lambda wait function-updated-v2 --function-name "$fn"
}

for key in McpFunctionName AuthorizerFunctionName; do
  fn="$(output "$key")"
  touch_latest "$fn"
  version="$(aws_ lambda publish-version --function-name "$fn" --description "recycled ${stamp}" --query Version --output text)"
  aws_ lambda update-alias --function-name "$fn" --name live --function-version "$version" --query FunctionVersion --output text >/dev/null
  echo "$fn: live -> version $version"
done

fn="$(output SweeperFunctionName)"
touch_latest "$fn"
echo "$fn: \$LATEST updated"
