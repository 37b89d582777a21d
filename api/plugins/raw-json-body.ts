// The JSON body parser. (It once also kept each request's raw text; nothing read it, and for a 1 MB
// body it was one more megabyte held until the response.)
import type { ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';

/** From this size on a JSON body is large: parsing, validating and storing it costs many times its size in memory. */
export const LARGE_BODY_BYTES = 256 * 1024;
/** Large bodies parsed and handled at once; the others wait their turn, received but not parsed. */
export const LARGE_BODIES_AT_ONCE = 4;

const kResponse = Symbol('response');
declare module 'fastify' {
  interface FastifyRequest {
    [kResponse]?: ServerResponse;
  }
}

/**
 * Turns to handle large bodies, first come first served: at most `size` hold one, the others wait.
 * `enter` answers whether the turn was given (false when `leave` was called while still waiting);
 * `leave` frees the turn, or the place in the queue, and may be called any number of times.
 */
export class Turns {
  private held = 0;
  private readonly queue: (() => void)[] = [];

  constructor(readonly size: number) {}

  enter(): { given: Promise<boolean>; leave: () => void } {
    let state: 'waiting' | 'holding' | 'left' = 'waiting';
    let answer: (given: boolean) => void = () => {};
    const given = new Promise<boolean>((resolve) => (answer = resolve));
    const take = () => ((state = 'holding'), this.held++, answer(true));
    const leave = () => {
      if (state === 'holding') {
        this.held--;
        this.queue.shift()?.();
      } else if (state === 'waiting') {
        const at = this.queue.indexOf(take);
        if (at >= 0) this.queue.splice(at, 1);
        answer(false);
      }
      state = 'left';
    };
    if (this.held < this.size) take();
    else this.queue.push(take);
    return { given, leave };
  }

  /** Turns held now, and requests waiting for one. */
  get counts(): { holding: number; waiting: number } {
    return { holding: this.held, waiting: this.queue.length };
  }
}

/**
 * Parses JSON bodies with Fastify's safe parser (prototype poisoning refused). A large body waits,
 * received but unparsed, until fewer than LARGE_BODIES_AT_ONCE others are being handled, and keeps its
 * turn until its response is sent (or its client goes away): the memory that large bodies take at once
 * stays bounded whatever the number of connections, and a waiting request is only delayed, never refused.
 */
export const jsonBodyParser = fp(async (app: FastifyInstance) => {
  const turns = new Turns(LARGE_BODIES_AT_ONCE);
  app.decorate('largeBodyTurns', turns);
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  // The parser is given no reply: the response it must wait for is noted here, before the body is read.
  app.addHook('preParsing', async (request, reply, payload) => {
    request[kResponse] = reply.raw;
    return payload;
  });
  const gone = () => Object.assign(new Error('the client went away before its body was parsed'), { statusCode: 400 });
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, async (request: FastifyRequest, body: Buffer) => {
    const response = request[kResponse];
    if (body.length >= LARGE_BODY_BYTES && response) {
      if (response.destroyed) throw gone();
      const turn = turns.enter();
      // 'close' comes once the response is sent or the connection is gone, whichever is first.
      response.once('close', turn.leave);
      if (!(await turn.given)) throw gone();
    }
    return new Promise((resolve, reject) => parse(request, body.toString('utf8'), (err, value) => (err ? reject(err) : resolve(value))));
  });
});

declare module 'fastify' {
  interface FastifyInstance {
    /** The turns of large JSON bodies (see jsonBodyParser). */
    largeBodyTurns: Turns;
  }
}
