import type { Server } from 'node:http';

/**
 * Keeps a local server's idle keep-alive sockets open longer than any client's idle timeout, so that a client (a
 * browser, the admin CLI, a test's SDK) never reuses a socket the server just closed: with Node's 5 s default, a
 * burst of requests under load got `socket hang up` on every retry. Headers may take no longer than that either.
 */
export function keepIdleSocketsOpen(server: Server): void {
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
}
