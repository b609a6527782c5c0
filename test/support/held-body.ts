import { Readable } from 'node:stream';

/**
 * A request body that is sent only when `finish` is called: the request stays in flight
 * meanwhile, admitted and its body being read. `reading` resolves once the server starts reading
 * it, which is after the request's onRequest hooks (authentication, admission) passed. Sent
 * without Content-Length (chunked), so admission counts it whatever its size.
 */
export function heldBody(content: string | Buffer): { body: Readable; reading: Promise<void>; finish(): void } {
  let started: () => void = () => {};
  const reading = new Promise<void>((resolve) => (started = resolve));
  const body = new Readable({
    read() {
      started();
    },
  });
  return {
    body,
    reading,
    finish: () => {
      body.push(typeof content === 'string' ? Buffer.from(content) : content);
      body.push(null);
    },
  };
}
