import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  dataFrame,
  decodeHeaderPairs,
  encodeHeaderPairs,
  FrameParser,
  FrameParseError,
  FrameType,
  goawayFrame,
  pingFrame,
  rstStreamFrame,
  synReplyFrame,
} from './frames.ts';
import { HeaderCodec, SPDY3_DICTIONARY } from './header-block.ts';

describe('SPDY/3.1 frames', () => {
  it('parses frames split across arbitrary chunk boundaries', () => {
    const bytes = Buffer.concat([
      dataFrame(1, Buffer.from('hello'), true),
      pingFrame(7),
      rstStreamFrame(3, 5),
    ]);
    const parser = new FrameParser();
    const frames = [...bytes].flatMap((b) => parser.push(Buffer.from([b])));
    expect(frames).toHaveLength(3);
    expect(frames[0]).toMatchObject({ kind: 'data', streamId: 1, flags: 1 });
    expect((frames[0] as { data: Buffer }).data.toString()).toBe('hello');
    expect(frames[1]).toMatchObject({ kind: 'control', type: FrameType.ping });
    expect((frames[1] as { body: Buffer }).body.readUInt32BE(0)).toBe(7);
    expect(frames[2]).toMatchObject({ kind: 'control', type: FrameType.rstStream });
  });

  it('writes control frames with the version-3 header', () => {
    const goaway = goawayFrame(9);
    expect(goaway.readUInt16BE(0)).toBe(0x8003);
    expect(goaway.readUInt16BE(2)).toBe(FrameType.goaway);
    expect(goaway.readUIntBE(5, 3)).toBe(8);
    const reply = synReplyFrame(5, Buffer.from([1, 2]), false);
    expect(reply.readUInt16BE(2)).toBe(FrameType.synReply);
    expect(reply.readUInt32BE(8)).toBe(5);
  });

  it('rejects another SPDY version', () => {
    const frame = pingFrame(1);
    frame.writeUInt16BE(0x8002, 0);
    expect(() => new FrameParser().push(frame)).toThrow(FrameParseError);
  });

  it('round-trips name/value blocks, lowercasing names', () => {
    const block = encodeHeaderPairs(
      new Map([
        ['streamType', 'data'],
        ['port', '8080'],
      ]),
    );
    expect([...decodeHeaderPairs(block)]).toEqual([
      ['streamtype', 'data'],
      ['port', '8080'],
    ]);
    expect(() => decodeHeaderPairs(block.subarray(0, 10))).toThrow(FrameParseError);
  });
});

describe('SPDY/3 header compression', () => {
  it('uses the exact 1423-byte SPDY/3 dictionary', () => {
    expect(SPDY3_DICTIONARY.length).toBe(1423);
    // sha256 of the dictionary in the SPDY/3 draft (as shipped by Go's and Node's SPDY stacks)
    expect(createHash('sha256').update(SPDY3_DICTIONARY).digest('hex')).toBe(
      '51d27341373f923f3cd88e1eb7162aeaa3723d7585ff2399201dc06498407f02',
    );
  });

  it('keeps one zlib context across blocks in each direction', async () => {
    const a = new HeaderCodec();
    const b = new HeaderCodec();
    for (const port of ['80', '8080', '8080']) {
      const block = encodeHeaderPairs(
        new Map([
          ['streamtype', 'error'],
          ['port', port],
        ]),
      );
      const wire = await a.compress(block);
      expect(decodeHeaderPairs(await b.decompress(wire)).get('port')).toBe(port);
    }
    a.close();
    b.close();
  });
});
