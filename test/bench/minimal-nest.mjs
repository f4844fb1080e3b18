// A baseline for the api reads (issue 57): the least a NestJS app on Fastify with a passport bearer guard
// does to serve a read whose answer it already holds. Its own process, like the api, so its CPU per request
// is measured the same way. Plain ESM without a TypeScript loader, so Nest's decorators are applied as the
// functions they are. MINIMAL_BODIES names a JSON file of path → answer text, MINIMAL_TOKEN the bearer
// token it takes, PORT where it listens; /health/live answers without credentials, as the api's does.
//
// With MINIMAL_DATABASE_URL the same app reads each guarded answer from Postgres on every request (one query
// on a pg Pool of the api's size) and lets Fastify serialise what the query returns: the lower bound of an
// app that reads Postgres on each request, which an api caching its reads should beat. A stored transactions
// page it reads as text and sends as it is, as the api keeps those records: JSON text in Postgres.
import 'reflect-metadata';
import { Buffer } from 'node:buffer';
import { readFileSync } from 'node:fs';
import { Controller, Get, Injectable, Module, Req, Res, UseGuards } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AuthGuard, PassportModule, PassportStrategy } from '@nestjs/passport';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import CustomStrategy from 'passport-custom';
import pg from 'pg';

const texts = Object.entries(JSON.parse(readFileSync(process.env.MINIMAL_BODIES, 'utf8')));
const bodies = new Map(texts.map(([path, text]) => [path, Buffer.from(text)]));
const expected = `Bearer ${process.env.MINIMAL_TOKEN}`;
const pool = process.env.MINIMAL_DATABASE_URL
  ? await answersInPostgres(process.env.MINIMAL_DATABASE_URL)
  : null;

/**
 * A table of the baseline's own in the bench database, made anew from the bodies file. `json`, not `jsonb`:
 * jsonb reorders keys, and the bytes served must be the api's.
 */
async function answersInPostgres(connectionString) {
  const db = new pg.Pool({ connectionString, max: 10 });
  await db.query('DROP TABLE IF EXISTS bench_nest_answers');
  await db.query('CREATE TABLE bench_nest_answers (path text PRIMARY KEY, body json NOT NULL)');
  for (const [path, text] of texts) {
    await db.query('INSERT INTO bench_nest_answers (path, body) VALUES ($1, $2)', [path, text]);
  }
  return db;
}

class BearerStrategy extends PassportStrategy(CustomStrategy, 'bench-bearer') {
  // No principal: passport fails the request, and the guard answers 401.
  validate(request) {
    return request.headers.authorization === expected ? { kind: 'merchant' } : null;
  }
}
Injectable()(BearerStrategy);

class ReadsController {
  read(request, reply) {
    const body = bodies.get(request.url);
    if (!body) return reply.code(404).send();
    return reply.type('application/json; charset=utf-8').send(body);
  }
  async query(request, reply) {
    const { rows } = await pool.query('SELECT body FROM bench_nest_answers WHERE path = $1', [request.url]);
    if (rows.length === 0) return reply.code(404).send();
    return reply.send(rows[0].body);
  }
  accounts(request, reply) {
    return pool ? this.query(request, reply) : this.read(request, reply);
  }
  users(request, reply) {
    return pool ? this.query(request, reply) : this.read(request, reply);
  }
  live(request, reply) {
    return pool ? this.query(request, reply) : this.read(request, reply);
  }
  /** The stored page's text as Postgres keeps it, sent as it is: its records are JSON text already. */
  async text(request, reply) {
    const { rows } = await pool.query('SELECT body::text AS text FROM bench_nest_answers WHERE path = $1', [
      request.url,
    ]);
    if (rows.length === 0) return reply.code(404).send();
    return reply.type('application/json; charset=utf-8').send(rows[0].text);
  }
  stored(request, reply) {
    return pool ? this.text(request, reply) : this.read(request, reply);
  }
  health(request, reply) {
    return this.read(request, reply);
  }
}
const method = (name, path, guarded) => {
  const descriptor = Object.getOwnPropertyDescriptor(ReadsController.prototype, name);
  Req()(ReadsController.prototype, name, 0);
  Res()(ReadsController.prototype, name, 1);
  if (guarded) UseGuards(AuthGuard('bench-bearer'))(ReadsController.prototype, name, descriptor);
  Get(path)(ReadsController.prototype, name, descriptor);
};
method('accounts', 'v1/users/:userId/accounts', true);
method('users', 'v1/users', true);
method('live', 'v1/accounts/:accountId/transactions/live', true);
method('stored', 'v1/accounts/:accountId/transactions', true);
method('health', 'health/live', false);
Controller()(ReadsController);

class MinimalModule {}
Module({ imports: [PassportModule], controllers: [ReadsController], providers: [BearerStrategy] })(
  MinimalModule,
);

const app = await NestFactory.create(MinimalModule, new FastifyAdapter(), { logger: false });
await app.listen(Number(process.env.PORT), '127.0.0.1');
// The table goes with the app, so the bench database is left as the migrations made it.
const stop = () =>
  void app
    .close()
    .then(() => pool?.query('DROP TABLE IF EXISTS bench_nest_answers'))
    .then(() => pool?.end())
    .finally(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
