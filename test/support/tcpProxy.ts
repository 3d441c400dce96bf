import { type Server, type Socket, connect, createServer } from 'node:net';

/**
 * A TCP proxy on 127.0.0.1 for fault tests: clients connect to `port`, each connection is piped to `target`. It can
 * cut the network between them and heal it:
 *
 * - `cut('drop')`: a silent partition. Nothing more passes either way and nobody is told: bytes are discarded, a side
 *   that closes is not reported to the other, new connections are accepted and then hear nothing (as if the SYN went
 *   through and everything after it was lost). A client finds out only through its own timeouts; the server keeps
 *   whatever the client had open (a transaction, its locks) until its own timeouts end it.
 * - `cut('reset')`: every connection is reset at once (both sides see ECONNRESET) and new ones are reset on arrival.
 * - `heal()`: new connections pass again. Connections cut silently stay dead (as a real TCP connection would be after
 *   its peer timed out): they are reset now, so the server ends their sessions.
 */
export type CutMode = 'drop' | 'reset';

export interface TcpProxy {
  readonly port: number;
  /** Connections made through the proxy so far. */
  readonly connections: number;
  cut(mode: CutMode): void;
  /**
   * Cuts (`mode`) when a client next sends bytes `match` picks, before they pass: e.g. a COMMIT, so the server is left
   * holding the transaction it belongs to (drop) or sees its client vanish mid-commit (reset). Resolves once cut.
   */
  cutOnNext(match: (chunk: Buffer) => boolean, mode: CutMode): Promise<void>;
  heal(): void;
  close(): Promise<void>;
}

interface Pair {
  client: Socket;
  server: Socket | null;
  dead: boolean;
}

export function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  let mode: CutMode | null = null;
  let connections = 0;
  let trigger: { match: (chunk: Buffer) => boolean; mode: CutMode; done: () => void } | null = null;
  const pairs = new Set<Pair>();

  const reset = (pair: Pair) => {
    pair.dead = true;
    pair.client.resetAndDestroy();
    pair.server?.resetAndDestroy();
    pairs.delete(pair);
  };

  const cut = (how: CutMode) => {
    mode = how;
    for (const pair of [...pairs]) {
      if (how === 'reset') reset(pair);
      // Silently dead: from now on nothing passes and neither side's close reaches the other.
      else pair.dead = true;
    }
  };

  const server: Server = createServer((client) => {
    connections++;
    const pair: Pair = { client, server: null, dead: false };
    pairs.add(pair);
    client.on('error', () => {});
    client.on('close', () => {
      if (!pair.dead) {
        pair.server?.destroy();
        pairs.delete(pair);
      }
    });
    if (mode === 'reset') return reset(pair);
    if (mode === 'drop') {
      // Accepted, then silence: whatever the client sends is lost.
      pair.dead = true;
      client.on('data', () => {});
      return;
    }
    const upstream = connect(target.port, target.host);
    pair.server = upstream;
    upstream.on('error', () => {});
    upstream.on('close', () => {
      if (!pair.dead) {
        client.destroy();
        pairs.delete(pair);
      }
    });
    client.on('data', (chunk: Buffer) => {
      if (trigger?.match(chunk)) {
        const { mode: how, done } = trigger;
        trigger = null;
        cut(how);
        done();
      }
      if (!pair.dead) upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      if (!pair.dead) client.write(chunk);
    });
  });

  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      if (!address || typeof address !== 'object') return reject(new Error('the proxy has no port'));
      resolve({
        port: address.port,
        get connections() {
          return connections;
        },
        cut,
        cutOnNext(match, how) {
          return new Promise((done) => (trigger = { match, mode: how, done }));
        },
        heal() {
          mode = null;
          for (const pair of [...pairs]) if (pair.dead) reset(pair);
        },
        close() {
          for (const pair of [...pairs]) reset(pair);
          return new Promise((done) => server.close(() => done()));
        },
      });
    });
  });
}
