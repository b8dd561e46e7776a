#!/bin/sh
# $BROWSER for the MCP Inspector CLI on a machine without a desktop: see consent-browser.mjs.
exec node "$(dirname "$0")/consent-browser.mjs" "$1"
