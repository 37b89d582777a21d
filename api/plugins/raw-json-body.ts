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

/** How long a body that was given its turn before it was read may take to arrive before it gives the turn back. */
export const SLOW_BODY_MS = 2_000;

const kEarlyTurn = Symbol('largeBodyEarlyTurn');
declare module 'fastify' {
  interface FastifyRequest {
    /** The turn taken before the body was read, and the timer that gives it back if the body is slow to come. */
    [kEarlyTurn]?: { leave: () => void; timer: NodeJS.Timeout; keeps: boolean };
  }
}

/**
 * Parses JSON bodies with Fastify's safe parser (prototype poisoning refused). A large body waits its turn
 * until fewer than LARGE_BODIES_AT_ONCE others are being handled, and keeps it until its response is sent
 * (or its client goes away): the memory that large bodies take at once stays bounded whatever the number of
 * connections, and a waiting request is only delayed, never refused. A body whose Content-Length says it is
 * large waits before it is read, so it stays in the socket (the client is slowed by TCP) instead of in our
 * heap; a chunked one can only be measured once received, so it waits received but unparsed.
 */
export const jsonBodyParser = fp(async (app: FastifyInstance) => {
  const turns = new Turns(LARGE_BODIES_AT_ONCE);
  app.decorate('largeBodyTurns', turns);
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  const gone = () => Object.assign(new Error('the client went away before its body was parsed'), { statusCode: 400 });
  // The turn is kept until the response's 'close', which comes once it is sent or the connection is gone.
  const takeTurn = async (response: ServerResponse) => {
    if (response.destroyed) throw gone();
    const turn = turns.enter();
    response.once('close', turn.leave);
    if (!(await turn.given)) throw gone();
    return turn.leave;
  };
  app.addHook('preParsing', async (request, reply, payload) => {
    request[kResponse] = reply.raw;
    const declared = Number(request.headers['content-length']);
    // A body over the route's limit is refused unread (413) without waiting for a turn.
    if (declared >= LARGE_BODY_BYTES && declared <= (request.routeOptions.bodyLimit ?? Infinity)) {
      const leave = await takeTurn(reply.raw);
      // A client that sends slowly must not sit on a turn: it gives it back and takes another once its body is in.
      const early = { leave, keeps: true, timer: setTimeout(() => ((early.keeps = false), leave()), SLOW_BODY_MS) };
      request[kEarlyTurn] = early;
      reply.raw.once('close', () => clearTimeout(early.timer));
    }
    return payload;
  });
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, async (request: FastifyRequest, body: Buffer) => {
    const response = request[kResponse];
    const early = request[kEarlyTurn];
    if (early) clearTimeout(early.timer);
    if (body.length >= LARGE_BODY_BYTES && response && !early?.keeps) await takeTurn(response);
    return new Promise((resolve, reject) => parse(request, body.toString('utf8'), (err, value) => (err ? reject(err) : resolve(value))));
  });
});

declare module 'fastify' {
  interface FastifyInstance {
    /** The turns of large JSON bodies (see jsonBodyParser). */
    largeBodyTurns: Turns;
  }
}
