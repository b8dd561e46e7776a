import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP hop in front of a server that a test can cut and restore, as a network outage would: cut,
 * every open connection is reset and new ones are refused (ECONNREFUSED); restored, it forwards
 * again on the same port.
 */
export interface TcpProxy {
  readonly port: number;
  cut(): Promise<void>;
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(targetPort: number, host = '127.0.0.1'): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  const forward = (client: Socket) => {
    const upstream = connect(targetPort, host);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => undefined);
    }
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  };
  let server: Server = createServer(forward);
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const stop = async () => {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const s of sockets) s.resetAndDestroy();
    await closed;
  };
  return {
    port,
    cut: stop,
    restore: async () => {
      if (server.listening) return;
      server = createServer(forward);
      await new Promise<void>((resolve) => server.listen(port, host, resolve));
    },
    close: async () => {
      if (server.listening) await stop();
    },
  };
}
