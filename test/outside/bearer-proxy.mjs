// A stand-in for an MCP client's header setting, for outside test suites that send no
// Authorization header (the MCP conformance suite's server scenarios): listens on 127.0.0.1:PORT
// and passes every request on to TARGET unchanged — Host and Origin included, so DNS-rebinding
// checks still see what the suite sent — adding `Authorization: Bearer $NAABA_KEY` where there is
// none. For checks on this machine only; docs/benchmarks.md ("Outside clients") shows how it is run.
import { createServer, request } from 'node:http';

const [port = '0', target = 'http://127.0.0.1:8000'] = process.argv.slice(2);
// biome-ignore lint/style/noProcessEnv: a standalone script outside lambda/, given the key by its caller
const key = process.env.NAABA_KEY ?? '';
const upstream = new URL(target);

const server = createServer((incoming, answer) => {
  const headers = { ...incoming.headers };
  if (!headers.authorization && key) headers.authorization = `Bearer ${key}`;
  const forward = request(
    { host: upstream.hostname, port: upstream.port, method: incoming.method, path: incoming.url, headers },
    (response) => {
      answer.writeHead(response.statusCode ?? 502, response.headers);
      response.pipe(answer);
    },
  );
  forward.on('error', () => {
    answer.writeHead(502);
    answer.end();
  });
  incoming.pipe(forward);
});
server.listen(Number(port), '127.0.0.1', () => console.error(`bearer proxy on http://127.0.0.1:${server.address().port}`));
