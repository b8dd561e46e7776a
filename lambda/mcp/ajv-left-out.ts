/**
 * What the Lambda bundles carry in place of `ajv` and `ajv-formats` (lib/bundling.ts aliases both
 * here): the MCP SDK's server imports them for its default JSON Schema validator, which naaba
 * replaces (no-elicitation.ts), so nothing in a function constructs one. Should an SDK upgrade
 * start to, the call fails loudly instead of validating nothing (decision 0137).
 */
export default function ajvLeftOut(): never {
  throw new Error('ajv is left out of the Lambda bundles (decision 0137): supply the MCP SDK a jsonSchemaValidator');
}
