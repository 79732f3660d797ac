import { describe, expect, it } from 'vitest';
import {
  blake3Hex,
  blake3Le64,
  FBI_MODULUS,
  FURC_SEED,
  fbiHash,
  furcHash,
  le64,
  murmurHash64A,
  utf8Bytes,
} from './hash.ts';

/** The official BLAKE3 test vectors (BLAKE3 repository, test_vectors.json): input byte i is i mod 251. */
const BLAKE3_VECTORS: [number, string][] = [
  [0, 'af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262'],
  [1, '2d3adedff11b61f14c886e35afa036736dcd87a74d27b5c1510225d0f592e213'],
  [1023, '10108970eeda3eb932baac1428c7a2163b0e924c9a9e25b35bba72b28f70bd11'],
  [1024, '42214739f095a406f3fc83deb889744ac00df831c10daa55189b5d121c855af7'],
  [1025, 'd00278ae47eb27b34faecf67b4fe263f82d5412916c1ffd97c8cb7fb814b8444'],
];

const bit = (h: bigint, i: number) => Number((h >> BigInt(i)) & 1n);

describe('BLAKE3 (SGLang Model Gateway ring positions)', () => {
  it('matches the official test vectors', () => {
    for (const [len, hex] of BLAKE3_VECTORS) {
      const input = Uint8Array.from({ length: len }, (_, i) => i % 251);
      expect(blake3Hex(input), `length ${len}`).toBe(hex);
    }
  });

  it('reads the first 8 bytes little-endian: blake3("") starts af 13 49 b9 f5 f9 a1 a6', () => {
    expect(blake3Le64(new Uint8Array())).toBe(0xa6a1f9f5b94913afn);
  });
});

describe('MurmurHash64A (vllm-router fbi_hash)', () => {
  it("passes SMHasher's verification test with its published value 0x1F0D3804", () => {
    // SMHasher VerificationTest: hash key[0..i] (key[j] = j) with seed 256 − i for i in 0..255, hash the 256
    // little-endian results with seed 0, and read the low 32 bits.
    const key = Uint8Array.from({ length: 256 }, (_, i) => i);
    const all = new Uint8Array(8 * 256);
    for (let i = 0; i < 256; i++) all.set(le64(murmurHash64A(key.subarray(0, i), 256 - i)), 8 * i);
    expect(Number(murmurHash64A(all, 0) & 0xffffffffn)).toBe(0x1f0d3804);
  });

  it('widens the seed as an unsigned 32-bit value (4193360111 > 2^31)', () => {
    expect(murmurHash64A(utf8Bytes('k'), FURC_SEED)).toBe(murmurHash64A(utf8Bytes('k'), FURC_SEED | 0));
    expect(murmurHash64A(utf8Bytes('k'), FURC_SEED)).not.toBe(murmurHash64A(utf8Bytes('k'), 0));
  });
});

describe("furc_hash and fbi_hash (vllm-router's consistent_hash)", () => {
  const keys = ['a', 'session-1', 'http://w0:8000:17', 'header:x-session-id:abc', 'ünïcödé'];

  it('worked by hand for m = 1, 2 and 4 from the bits of MurmurHash64A(key, 4193360111)', () => {
    for (const k of keys) {
      const bytes = utf8Bytes(k);
      const h = murmurHash64A(bytes, FURC_SEED);
      expect(furcHash(bytes, 1)).toBe(0);
      // m = 2: d = 1; bit 1 set → 1; else d = 0 and bit 0 set → 1; else 0.
      expect(furcHash(bytes, 2), k).toBe(bit(h, 1) || bit(h, 0) ? 1 : 0);
      // m = 4: d = 2; bit 2 set → 2 + bit 25 (a = 2 + 23); else as m = 2.
      expect(furcHash(bytes, 4), k).toBe(bit(h, 2) ? 2 + bit(h, 25) : bit(h, 1) || bit(h, 0) ? 1 : 0);
    }
  });

  it('is a consistent hash: growing m by one keeps a key in place or moves it to the new bucket', () => {
    for (let n = 0; n < 40; n++) {
      const bytes = utf8Bytes(`key-${n}`);
      let prev = furcHash(bytes, 1);
      for (let m = 2; m <= 70; m++) {
        const next = furcHash(bytes, m);
        expect(next).toBeLessThan(m);
        expect([prev, m - 1], `key-${n} m=${m}`).toContain(next);
        prev = next;
      }
    }
  });

  it('fbi_hash is MurmurHash64A of the 23-bit furc bucket as 4 little-endian bytes', () => {
    for (const k of keys) {
      const bucket = furcHash(utf8Bytes(k), FBI_MODULUS);
      expect(bucket).toBeLessThan(2 ** 23);
      const le32 = new Uint8Array(new Uint32Array([bucket]).buffer);
      expect(fbiHash(k)).toBe(murmurHash64A(le32, FURC_SEED));
    }
    expect(fbiHash('x')).toBe(fbiHash('x'));
  });
});
