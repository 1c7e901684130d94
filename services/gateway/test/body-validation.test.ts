import { expect } from 'chai';
import { startHarness, resetDoubles, type Harness, type Reply } from './harness';
import {
  DEFAULT_MAX_BODY_VALUES,
  MAX_OBJECT_FIELDS,
  measureJson,
  MAX_JSON_DEPTH,
  tooDeep,
} from '../src/middleware/body';
import { ITEMS_PER_SLICE, parseBatch, parseRootArray } from '../src/middleware/json-text';

const maxNesting = (text: string) => measureJson(text).depth;

function fields(reply: Reply): string[] {
  return reply.body.error.details.map((d: { field: string }) => d.field);
}

function expectInvalid(reply: Reply): void {
  expect(reply.status).to.equal(400);
  expect(reply.body.error.code).to.equal('invalid_request');
  expect(reply.body.request_id).to.equal(reply.requestId);
}

describe('gateway request bodies', () => {
  let h: Harness;
  before(async () => (h = await startHarness({ bodyLimitBytes: 1024 })));
  after(() => h.stop());
  afterEach(() => resetDoubles(h));

  const path = '/api/v2/ai/content/generate';

  it('415 for a body that is not application/json', async () => {
    const reply = await h.send('POST', path, {
      raw: '{"prompt":"x"}',
      headers: { 'content-type': 'text/plain' },
    });
    expect(reply.status).to.equal(415);
    expect(reply.body.error.code).to.equal('unsupported_media_type');
    expect(h.doubles.content.calls).to.have.length(0);
  });

  it('415 for a body without Content-Type, 200 with a UTF-8 charset', async () => {
    expect(
      (await h.send('POST', path, { raw: '{"prompt":"x"}', headers: { 'content-type': '' } }))
        .status,
    ).to.equal(415);
    const ok = await h.send('POST', path, {
      raw: '{"prompt":"x"}',
      headers: { 'content-type': 'application/json; charset=UTF-8' },
    });
    expect(ok.status).to.equal(200);
  });

  it('413 when Content-Length declares more than the limit', async () => {
    const reply = await h.send('POST', path, { body: { prompt: 'x'.repeat(2000) } });
    expect(reply.status).to.equal(413);
    expect(reply.body.error.code).to.equal('payload_too_large');
    expect(reply.body.request_id).to.equal(reply.requestId);
  });

  it('413 while reading a chunked body that grows past the limit', async () => {
    const chunk = new TextEncoder().encode(`{"prompt":"${'y'.repeat(600)}`);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(chunk);
        controller.enqueue(chunk);
        controller.close();
      },
    });
    const response = await fetch(h.baseUrl + path, {
      method: 'POST',
      headers: { authorization: `X-API-Key ${h.key}`, 'content-type': 'application/json' },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    expect(response.status).to.equal(413);
    expect(((await response.json()) as { error: { code: string } }).error.code).to.equal(
      'payload_too_large',
    );
  });

  it('400 for invalid JSON', async () => {
    const reply = await h.send('POST', path, {
      raw: '{"prompt": "x",',
      headers: { 'content-type': 'application/json' },
    });
    expectInvalid(reply);
    expect(reply.body.error.message).to.equal('request body is not valid JSON');
  });

  it('400 for a JSON body that is not an object', async () => {
    const reply = await h.send('POST', path, { body: ['prompt'] });
    expectInvalid(reply);
    expect(fields(reply)).to.deep.equal(['']);
  });

  it('names a missing required field', async () => {
    const reply = await h.send('POST', path, { body: { tone: 'formal' } });
    expectInvalid(reply);
    expect(reply.body.error.details).to.deep.equal([{ field: '/prompt', reason: 'is required' }]);
    expect(reply.body.error.message).to.equal('prompt is required');
  });

  it('names an unknown field', async () => {
    const reply = await h.send('POST', path, { body: { prompt: 'x', foo: 1 } });
    expectInvalid(reply);
    expect(reply.body.error.details).to.deep.equal([
      { field: '/foo', reason: 'is not an allowed field' },
    ]);
  });

  it('names a wrong type and summarises the constraint', async () => {
    const reply = await h.send('POST', path, { body: { prompt: 'x', max_length: 'long' } });
    expectInvalid(reply);
    expect(reply.body.error.details).to.deep.equal([
      { field: '/max_length', reason: 'must be integer' },
    ]);
    expect(reply.body.error.message).to.equal('max_length must be an integer >= 1 and <= 32768');
  });

  it('names out-of-range values', async () => {
    for (const value of [0, 32769, 1.5]) {
      const reply = await h.send('POST', path, { body: { prompt: 'x', max_length: value } });
      expectInvalid(reply);
      expect(fields(reply), String(value)).to.deep.equal(['/max_length']);
    }
  });

  it('reports every offending field, the first one in the message', async () => {
    const reply = await h.send('POST', path, {
      body: { max_length: 0, language: 'English', webhookUrl: 'not a url', extra: true },
    });
    expectInvalid(reply);
    expect(fields(reply)).to.have.members([
      '/prompt',
      '/max_length',
      '/language',
      '/webhookUrl',
      '/extra',
    ]);
    expect(reply.body.error.message).to.match(/^prompt is required \(and 4 more\)$/);
  });

  it('rejects an empty prompt and an overlong tone', async () => {
    const reply = await h.send('POST', path, { body: { prompt: '', tone: 't'.repeat(201) } });
    expectInvalid(reply);
    expect(fields(reply)).to.have.members(['/prompt', '/tone']);
  });

  it('says in words what a pattern allows, never the regular expression', async () => {
    const blank = await h.send('POST', path, { body: { prompt: '   ' } });
    expectInvalid(blank);
    expect(blank.body.error.details).to.deep.equal([
      { field: '/prompt', reason: 'must not be blank' },
    ]);
    const name = await h.send('POST', '/api/v2/knowledge/collections', {
      body: { name: 'Concerts 2026', kind: 'events' },
    });
    expectInvalid(name);
    expect(name.body.error.details).to.deep.equal([
      {
        field: '/name',
        reason:
          'must be lowercase letters, digits, - and _, starting with a letter or digit (at most 63 characters)',
      },
    ]);
    expect(name.body.error.message).to.equal(
      'name must be a string of lowercase letters, digits, - and _, starting with a letter or digit (at most 63 characters)',
    );
  });

  it('names nested fields as JSON pointers', async () => {
    const reply = await h.send('POST', '/api/v2/ai/assistants/support', {
      body: {
        user_id: 'u',
        session_id: 's',
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'robot', content: 'x', at: 1 },
        ],
      },
    });
    expectInvalid(reply);
    expect(fields(reply)).to.have.members(['/messages/1/role', '/messages/1/at']);
    expect(reply.body.error.message).to.match(
      /^messages\[1\]\.(role must be one of: user, system, assistant|at is not an allowed field)/,
    );
  });

  it('treats a POST without body as {}', async () => {
    const reply = await h.send('POST', path);
    expectInvalid(reply);
    expect(fields(reply)).to.deep.equal(['/prompt']);
  });
});

describe('JSON nesting and value count, read from the text before any parse or walk of the value', () => {
  it('counts values as JSON.parse would make them: containers and scalars, not keys, not inside strings', () => {
    expect(measureJson('').values).to.equal(0);
    expect(measureJson('123').values).to.equal(1);
    expect(measureJson('{}').values).to.equal(1);
    expect(measureJson(' [ ] ').values).to.equal(1);
    expect(measureJson('{"a":1}').values).to.equal(2);
    expect(measureJson('{"a": [1, {"b": null}, [], "x,y"], "c": {"d,": "[{,"}}').values).to.equal(
      9,
    );
  });

  it('parses a batch in slices to exactly what JSON.parse gives, and fails as JSON.parse does', async () => {
    const many = {
      note: 'items: ["x"]',
      items: Array.from({ length: 2 * ITEMS_PER_SLICE + 7 }, (_, i) => ({
        i,
        s: `a,"b"]\\${i}`,
        n: [[i], {}],
      })),
      after: 1,
    };
    const texts = [
      JSON.stringify(many),
      JSON.stringify(many, null, 2),
      '{"items":[]}',
      '{ "items" : [ ] , "x": 1}',
      '{"a":{"items":[9]},"items":[1,[2,3],"]",{"items":[4]}]}',
      '{"items":[1],"items":[2,3]}',
      '{"items":5}',
      '[{"items":[1]}]',
      '{"itemsX":[1],"items":["\\"",null,true,-1.5e3]}',
    ];
    for (const text of texts)
      expect(await parseBatch(text, 'items'), text.slice(0, 60)).to.deep.equal(JSON.parse(text));
    for (const text of [
      '{"items":[1,2,]}',
      '{"items":[1,2]',
      '{"items":[1 2]}',
      '{"items":[1],}',
    ]) {
      const expected = (() => {
        try {
          return JSON.parse(text);
        } catch (error) {
          return (error as Error).message;
        }
      })();
      const error = await parseBatch(text, 'items').then(
        () => 'parsed',
        (e: Error) => e.message,
      );
      expect(error, text).to.equal(expected);
    }
  });

  it('agrees with JSON.parse on 1,000 generated batch texts, valid and broken (the value or the error message)', async () => {
    let seed = 42;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const pick = <T>(values: T[]): T => values[Math.floor(random() * values.length)]!;
    const texts = [
      'items',
      '"',
      '\\',
      ',',
      ']',
      '[',
      '{',
      '}',
      ':',
      'a"b',
      'items"',
      ' ',
      '\u2028',
      '😀',
      '',
    ];
    const value = (depth: number): unknown => {
      const roll = random();
      if (depth > 3 || roll < 0.3)
        return pick<unknown>([1, -2.5e3, true, false, null, pick(texts)]);
      if (roll < 0.6)
        return Array.from({ length: Math.floor(random() * 4) }, () => value(depth + 1));
      return Object.fromEntries(
        Array.from({ length: Math.floor(random() * 4) }, () => [
          pick(texts) + Math.floor(random() * 3),
          value(depth + 1),
        ]),
      );
    };
    const outcome = async (parse: () => unknown) => {
      try {
        return { value: await parse() };
      } catch (error) {
        return { error: (error as Error).message };
      }
    };
    for (let n = 0; n < 1000; n++) {
      const body = {
        ...(random() < 0.5 ? { before: value(1) } : {}),
        items: Array.from({ length: Math.floor(random() * 250) }, () => value(1)),
        after: value(1),
      };
      let text = JSON.stringify(body, null, random() < 0.3 ? 1 : undefined);
      if (random() < 0.3)
        text = text.replace(
          /([,:[\]{}])/g,
          (m) => (random() < 0.2 ? pick([' ', '\n', '\t']) : '') + m,
        );
      if (random() < 0.2) {
        const at = Math.floor(random() * text.length);
        text = text.slice(0, at) + text.slice(at + 1);
      }
      if (random() < 0.05) text = text.replace('{', '{"items":7,');
      expect(await outcome(() => parseBatch(text, 'items')), text.slice(0, 200)).to.deep.equal(
        await outcome(() => JSON.parse(text)),
      );
      // The same items as a body that is an array itself (an import's JSON array).
      let array = JSON.stringify(body.items, null, random() < 0.3 ? 1 : undefined);
      if (random() < 0.2) {
        const at = Math.floor(random() * array.length);
        array = array.slice(0, at) + array.slice(at + 1);
      }
      if (random() < 0.1) array = pick([`${array} 1`, `${array},[2]`, ` ${array}\n`, `1${array}`]);
      expect(await outcome(() => parseRootArray(array)), array.slice(0, 200)).to.deep.equal(
        await outcome(() => JSON.parse(array)),
      );
    }
    for (const text of ['[]', ' [ ] ', '[1,]', '[[1],2', '[1]]', '"[1]"', '{"a":[1]}', '[1] [2]'])
      expect(await outcome(() => parseRootArray(text)), text).to.deep.equal(
        await outcome(() => JSON.parse(text)),
      );
  });

  it('finds the object with the most fields, at any depth', () => {
    expect(measureJson('[1, 2, 3]').widestObject).to.equal(0);
    expect(measureJson('{"a": {"x": 1, "y": ":", "z": [{"q": 1}]}, "b": 2}').widestObject).to.equal(
      3,
    );
    expect(measureJson('[{"a":1,"b":2},{"c":3}]').widestObject).to.equal(2);
  });

  it('agrees with a count of the parsed value on generated bodies', () => {
    const count = (value: unknown): number =>
      value !== null && typeof value === 'object'
        ? 1 + Object.values(value).reduce<number>((sum, child) => sum + count(child), 0)
        : 1;
    const bodies = [
      {
        items: Array.from({ length: 50 }, (_, i) => ({
          itemId: `i${i}`,
          categories: i % 2 ? [] : ['a', 'b,"c'],
          attributes: { n: i, nested: { ok: true } },
        })),
      },
      [[], [[]], {}, [{}], 'text with \\ and " and ] }', -1.5e3],
    ];
    for (const body of bodies) {
      const text = JSON.stringify(body, null, body === bodies[0] ? 2 : undefined);
      expect(measureJson(text).values).to.equal(count(body));
    }
  });

  it('counts brackets, not those inside strings or after escapes', () => {
    expect(maxNesting('{}')).to.equal(1);
    expect(maxNesting('{"a":[{"b":[]}]}')).to.equal(4);
    expect(maxNesting('{"a":"[[[{{{","b":"\\"[[[","c":[1]}')).to.equal(2);
    expect(maxNesting('"[[["')).to.equal(0);
  });

  it('agrees with the walk of the parsed value on where "too deep" starts', () => {
    const nested = (levels: number) => `${'{"a":'.repeat(levels - 1)}{}${'}'.repeat(levels - 1)}`;
    for (const levels of [MAX_JSON_DEPTH, MAX_JSON_DEPTH + 1]) {
      const text = nested(levels);
      expect(maxNesting(text), `${levels} levels`).to.equal(levels);
      expect(maxNesting(text) > MAX_JSON_DEPTH, `${levels} levels`).to.equal(
        tooDeep(JSON.parse(text), MAX_JSON_DEPTH) !== undefined,
      );
    }
  });
});

describe('gateway batch bodies (large bodies validated in slices)', () => {
  let h: Harness;
  before(async () => (h = await startHarness()));
  after(() => h.stop());
  afterEach(() => resetDoubles(h));

  /** 1000 items of about 25 values each: 5 times the default value limit, within the catalog's. */
  function catalogBatch(): Array<Record<string, unknown>> {
    return Array.from({ length: 1000 }, (_, i) => ({
      itemId: `sku-${i}`,
      catalog: 'ecommerce',
      title: `Item ${i}`,
      categories: ['a', 'b', 'c'],
      attributes: { price: i, tags: Array.from({ length: 15 }, (_, t) => `t${t}`) },
    }));
  }

  it('a catalog batch over the default value limit is accepted whole, defaults filled in every slice', async () => {
    const items = catalogBatch();
    expect(measureJson(JSON.stringify({ items })).values).to.be.above(5 * DEFAULT_MAX_BODY_VALUES);
    const reply = await h.send('POST', '/api/v2/catalog/items', { body: { items } });
    expect(reply.status, JSON.stringify(reply.body)).to.equal(200);
    const sent = h.doubles.recommendation.last('UpsertItems').request.items;
    expect(sent).to.have.length(1000);
    expect(sent[999]).to.include({ item_id: 'sku-999', available: true });
    expect(JSON.parse(sent[999].attributes_json).tags).to.have.length(15);
  });

  it('an invalid item in a later slice is named with its index in the body, nothing is written', async () => {
    const items = catalogBatch();
    const index = 7 * ITEMS_PER_SLICE + 3;
    items[index]!.title = ' ';
    const reply = await h.send('POST', '/api/v2/catalog/items', { body: { items } });
    expectInvalid(reply);
    expect(fields(reply)).to.deep.equal([`/items/${index}/title`]);
    expect(reply.body.error.message).to.match(
      new RegExp(
        `^items\\[${index}\\]\\.title must be a non-blank string .*only its first problem is listed\\)$`,
      ),
    );
    expect(h.doubles.recommendation.calls).to.have.length(0);
  });

  it('the envelope of a large batch is checked before its items (too many items, unknown field)', async () => {
    const tooMany = await h.send('POST', '/api/v2/catalog/items', {
      body: { items: [...catalogBatch(), ...catalogBatch().slice(0, 1)] },
    });
    expectInvalid(tooMany);
    expect(fields(tooMany)).to.deep.equal(['/items']);
    const extra = await h.send('POST', '/api/v2/catalog/items', {
      body: { items: catalogBatch(), dryRun: true },
    });
    expectInvalid(extra);
    expect(fields(extra)).to.deep.equal(['/dryRun']);
  });

  it(`413 for a body of more than ${DEFAULT_MAX_BODY_VALUES} JSON values, before it is parsed`, async () => {
    const reply = await h.send('POST', '/api/v2/ai/content/generate', {
      raw: `{"prompt":"x","n":[${'0,'.repeat(DEFAULT_MAX_BODY_VALUES)}0]}`,
      headers: { 'content-type': 'application/json' },
    });
    expect(reply.status).to.equal(413);
    expect(reply.body.error.code).to.equal('payload_too_large');
    expect(reply.body.error.message).to.equal(
      `request body holds more than ${DEFAULT_MAX_BODY_VALUES} JSON values (the limit of this operation)`,
    );
    expect(reply.body.error.details).to.deep.equal([
      { field: '', reason: `more than ${DEFAULT_MAX_BODY_VALUES} values` },
    ]);
    expect(reply.body.request_id).to.equal(reply.requestId);
    expect(h.doubles.content.calls).to.have.length(0);
  });

  it("the OpenAPI document states each operation's value limit", async () => {
    const paths = (await h.send('GET', '/openapi.json')).body.paths;
    expect(paths['/api/v2/catalog/items'].post.requestBody.description).to.include(
      'at most 100000 values',
    );
    expect(paths['/api/v2/ai/content/generate'].post.requestBody.description).to.include(
      `at most ${DEFAULT_MAX_BODY_VALUES} values`,
    );
  });

  it(`413 for an object of more than ${MAX_OBJECT_FIELDS} fields, even within a batch's value limit`, async () => {
    const attributes = Object.fromEntries(
      Array.from({ length: MAX_OBJECT_FIELDS + 1 }, (_, i) => [`a${i}`, i]),
    );
    const reply = await h.send('POST', '/api/v2/catalog/items', {
      body: { items: [{ itemId: 'wide', catalog: 'ecommerce', title: 't', attributes }] },
    });
    expect(reply.status).to.equal(413);
    expect(reply.body.error.code).to.equal('payload_too_large');
    expect(reply.body.error.message).to.equal(
      `request body has an object of more than ${MAX_OBJECT_FIELDS} fields`,
    );
    expect(h.doubles.recommendation.calls).to.have.length(0);
  });

  it('413 for a batch over its own value limit', async () => {
    const items = Array.from({ length: 1000 }, (_, i) => ({
      itemId: `sku-${i}`,
      catalog: 'ecommerce',
      title: 't',
      attributes: { v: Array.from({ length: 100 }, () => 1) },
    }));
    const reply = await h.send('POST', '/api/v2/catalog/items', { body: { items } });
    expect(reply.status).to.equal(413);
    expect(reply.body.error.code).to.equal('payload_too_large');
    expect(reply.body.error.message).to.equal(
      'request body holds more than 100000 JSON values (the limit of this operation)',
    );
    expect(h.doubles.recommendation.calls).to.have.length(0);
  });
});
