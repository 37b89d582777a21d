// The JSON body parser. (It once also kept each request's raw text; nothing read it, and for a 1 MB
// body it was one more megabyte held until the response.)
import type { ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { unavailable } from '../../contract/errors.js';
import { clientKey } from '../../domain/client-address.js';

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

/** Turns one owner (a store, or a client without a key) may hold while another owner waits for one. */
export const LARGE_BODY_TURNS_PER_OWNER = 2;
/** Requests that may wait for a turn, in all and per owner; beyond them, 503 with Retry-After. */
export const LARGE_BODY_WAITING = { total: 64, perOwner: 16 } as const;

type Waiter = () => void;

/**
 * Turns to handle large bodies, shared fairly between owners (stores): at most `size` are held at once, and
 * more than `perOwner` by one owner only while no other owner waits; each owner waits in a line of its own, and a freed turn goes to the next
 * owner in round-robin order that may take one, so one store's stalled bodies only ever wait behind its own.
 * The lines are bounded (`waiting`): `enter` answers `full` at once when there is no room.
 * `given` answers whether the turn was given (false when `leave` was called while still waiting);
 * `leave` frees the turn, or the place in line, and may be called any number of times.
 */
export class Turns {
  private held = 0;
  private readonly heldBy = new Map<string, number>();
  // Insertion order is the round-robin order: an owner served goes to the back.
  private readonly lines = new Map<string, Waiter[]>();
  private waitingCount = 0;

  constructor(
    readonly size: number,
    readonly perOwner: number = size,
    readonly waiting: { total: number; perOwner: number } = { total: Infinity, perOwner: Infinity },
  ) {}

  enter(owner = ''): { given: Promise<boolean>; leave: () => void; full: boolean } {
    let state: 'waiting' | 'holding' | 'left' = 'waiting';
    let answer: (given: boolean) => void = () => {};
    const given = new Promise<boolean>((resolve) => (answer = resolve));
    const take = () => {
      state = 'holding';
      this.held++;
      this.heldBy.set(owner, (this.heldBy.get(owner) ?? 0) + 1);
      answer(true);
    };
    const leave = () => {
      if (state === 'holding') {
        this.held--;
        const mine = this.heldBy.get(owner)! - 1;
        if (mine > 0) this.heldBy.set(owner, mine);
        else this.heldBy.delete(owner);
        this.serve();
      } else if (state === 'waiting') {
        const line = this.lines.get(owner);
        const at = line ? line.indexOf(take) : -1;
        if (at >= 0) {
          line!.splice(at, 1);
          this.waitingCount--;
          if (line!.length === 0) this.lines.delete(owner);
        }
        answer(false);
      }
      state = 'left';
    };
    if (this.mayTake(owner) && !this.lines.has(owner)) {
      take();
      return { given, leave, full: false };
    }
    const line = this.lines.get(owner) ?? [];
    if (this.waitingCount >= this.waiting.total || line.length >= this.waiting.perOwner) {
      state = 'left';
      answer(false);
      return { given, leave: () => {}, full: true };
    }
    line.push(take);
    this.lines.set(owner, line);
    this.waitingCount++;
    return { given, leave, full: false };
  }

  // An owner at its share takes more only while no other owner waits: alone, a store may use every turn.
  private mayTake(owner: string): boolean {
    if (this.held >= this.size) return false;
    if ((this.heldBy.get(owner) ?? 0) < this.perOwner) return true;
    for (const other of this.lines.keys()) if (other !== owner) return false;
    return true;
  }

  /** Gives free turns to the owners in line, one each in round-robin order, while some may take one. */
  private serve(): void {
    let progress = true;
    while (progress && this.held < this.size) {
      progress = false;
      for (const [owner, line] of this.lines) {
        if (!this.mayTake(owner)) continue;
        const next = line.shift()!;
        this.waitingCount--;
        this.lines.delete(owner);
        if (line.length > 0) this.lines.set(owner, line);
        next();
        progress = true;
        break;
      }
    }
  }

  /** Turns held now, and requests waiting for one. */
  get counts(): { holding: number; waiting: number } {
    return { holding: this.held, waiting: this.waitingCount };
  }
}

/** Whose turn a request takes: its key's store (auth runs before any body is read), else its client address. */
const ownerOf = (request: FastifyRequest) => (request.principal ? `store:${request.principal.storeId}` : `client:${clientKey(request.ip)}`);

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
 * until fewer than LARGE_BODIES_AT_ONCE others are being handled (at most LARGE_BODY_TURNS_PER_OWNER of one
 * store), and keeps it until its response is sent (or its client goes away): the memory that large bodies
 * take at once stays bounded whatever the number of connections. A request finding no room in line
 * (LARGE_BODY_WAITING) is refused with 503 and Retry-After before its body is read. A body whose Content-Length says it is
 * large waits before it is read, so it stays in the socket (the client is slowed by TCP) instead of in our
 * heap; a chunked one can only be measured once received, so it waits received but unparsed.
 */
export const jsonBodyParser = fp(async (app: FastifyInstance) => {
  const turns = new Turns(LARGE_BODIES_AT_ONCE, LARGE_BODY_TURNS_PER_OWNER, LARGE_BODY_WAITING);
  app.decorate('largeBodyTurns', turns);
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  const gone = () => Object.assign(new Error('the client went away before its body was parsed'), { statusCode: 400 });
  // The turn is kept until the response's 'close', which comes once it is sent or the connection is gone.
  const takeTurn = async (response: ServerResponse, owner: string) => {
    if (response.destroyed) throw gone();
    const turn = turns.enter(owner);
    if (turn.full) throw unavailable('Too many large requests are waiting; retry shortly.', 2);
    response.once('close', turn.leave);
    if (!(await turn.given)) throw gone();
    return turn.leave;
  };
  app.addHook('preParsing', async (request, reply, payload) => {
    request[kResponse] = reply.raw;
    const declared = Number(request.headers['content-length']);
    // A body over the route's limit is refused unread (413) without waiting for a turn.
    if (declared >= LARGE_BODY_BYTES && declared <= (request.routeOptions.bodyLimit ?? Infinity)) {
      const leave = await takeTurn(reply.raw, ownerOf(request));
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
    if (body.length >= LARGE_BODY_BYTES && response && !early?.keeps) await takeTurn(response, ownerOf(request));
    return new Promise((resolve, reject) => parse(request, body.toString('utf8'), (err, value) => (err ? reject(err) : resolve(value))));
  });
});

declare module 'fastify' {
  interface FastifyInstance {
    /** The turns of large JSON bodies (see jsonBodyParser). */
    largeBodyTurns: Turns;
  }
}
