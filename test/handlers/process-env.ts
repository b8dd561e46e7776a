/**
 * Sets variables in this process's environment, as the Lambda runtime does before it loads a
 * handler, and returns the function that puts the previous values back.
 */
export function setEnvironment(variables: Record<string, string>): () => void {
  // biome-ignore lint/style/noProcessEnv: these tests stand in for the runtime that sets the variables
  const env = process.env;
  const previous = Object.fromEntries(Object.keys(variables).map((name) => [name, env[name]]));
  Object.assign(env, variables);
  return () => {
    for (const [name, value] of Object.entries(previous)) {
      if (value === undefined) Reflect.deleteProperty(env, name);
      else env[name] = value;
    }
  };
}
