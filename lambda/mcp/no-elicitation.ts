import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';

/**
 * The JSON Schema validator the MCP server is given instead of the SDK's default (ajv). The SDK
 * validates with it only the answer to an elicitation (a form it asks the client to fill), and
 * naaba asks for none; tool arguments are checked by their zod schemas. The default would cost
 * ajv's bytes in the bundle and an Ajv instance per request (decision 0137), so an answer to a form
 * naaba never sent is refused instead.
 */
export const noElicitation: jsonSchemaValidator = {
  getValidator: () => () => ({
    valid: false,
    data: undefined,
    errorMessage: 'naaba asks for no elicitation, so it validates no answer to one',
  }),
};
