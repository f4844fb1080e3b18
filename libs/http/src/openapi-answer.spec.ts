import { ApiProperty } from '@nestjs/swagger';
import { describe, expect, it } from 'vitest';
import { ApiAnswer, type Served } from './openapi.js';

// The compiler holds a route's view to its documented class both ways: `npm test` typechecks this file,
// and each `@ts-expect-error` fails that stage if its line ever compiles.

class InnerOutput {
  @ApiProperty() code!: string;
}

class ThingOutput {
  @ApiProperty() id!: string;
  @ApiProperty({ type: InnerOutput, nullable: true }) inner!: InnerOutput | null;
}

/** An upstream record passed on: named fields and whatever else the bank gives. */
class OpenOutput {
  [field: string]: unknown;
  @ApiProperty() id!: string;
}

const served = <T>(data: T): Promise<Served<T>> => Promise.resolve({ data, meta: { tracingId: 't' } });

class Routes {
  @ApiAnswer(200, ThingOutput)
  exact() {
    return served({ id: 'a', inner: { code: 'x' } });
  }

  // @ts-expect-error: `inner` is documented and missing
  @ApiAnswer(200, ThingOutput)
  missing() {
    return served({ id: 'a' });
  }

  // @ts-expect-error: `secret` is in the view and documented nowhere
  @ApiAnswer(200, ThingOutput)
  extra() {
    return served({ id: 'a', inner: null, secret: 's' });
  }

  // @ts-expect-error: so is `inner.hint`, a level down
  @ApiAnswer(200, ThingOutput, { list: true })
  extraBelow() {
    return served([{ id: 'a', inner: { code: 'x', hint: 'h' } }]);
  }

  @ApiAnswer(200, OpenOutput)
  open() {
    return served({ id: 'a', bankSays: 1 });
  }
}

describe('ApiAnswer', () => {
  it('documents the class it names as the answer', () => {
    const handler = Object.getOwnPropertyDescriptor(Routes.prototype, 'exact')?.value as object;
    expect(Reflect.getMetadata('swagger/apiResponse', handler)).toHaveProperty('200');
  });
});
