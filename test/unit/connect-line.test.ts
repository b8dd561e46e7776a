import { connectLine } from '../../lambda/http/client-config.js';

/** The `naaba connect` line the page and the banner give: the user's, for this server's folder or the region's endpoint. */

const USER = '6f1c2a4e-0000-4000-8000-000000000001';
const DEPLOYED = 'https://a1b2c3d4e5.execute-api.eu-central-1.amazonaws.com/v1/mcp';

test.each([
  [
    'a local folder, quoted for the shell',
    connectLine('claude-code', USER, { dataDir: "/home/sam/my naaba's", region: 'local' }),
    `npx naaba connect claude-code --issue claude-code --user ${USER} --data '/home/sam/my naaba'\\''s' --write`,
  ],
  [
    'the default folder and region: no flag for them',
    connectLine('cursor', USER, { region: 'local' }),
    `npx naaba connect cursor --issue cursor --user ${USER} --write`,
  ],
  [
    'a deployed region: its endpoint and region',
    connectLine('cursor', USER, { endpoint: DEPLOYED, region: 'eu-central-1' }),
    `npx naaba connect cursor --issue cursor --user ${USER} --endpoint ${DEPLOYED} --region eu-central-1 --write`,
  ],
  [
    'VS Code asks for the key itself: no key made',
    connectLine('vscode', USER, { region: 'local' }),
    'npx naaba connect vscode --write',
  ],
  [
    'the generic JSON prints (its file is the client’s to name)',
    connectLine('json', USER, { region: 'local' }),
    `npx naaba connect json --issue my-agent --user ${USER}`,
  ],
  [
    'before any key: the first key, of a new user',
    connectLine('claude-code', undefined, { dataDir: 'data', region: 'local' }),
    'npx naaba connect claude-code --issue claude-code --data data --write',
  ],
])('%s', (_case, line, expected) => {
  expect(line).toBe(expected);
});
