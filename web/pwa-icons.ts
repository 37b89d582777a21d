import { crc32, deflateSync } from 'node:zlib';

// The dashboard's app icons, drawn here rather than kept as binary files: the accent blue with a white
// shopping bag, square (maskable: the bag stays inside the central safe zone).

const chunk = (type: string, data: Buffer) => {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'ascii');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])) >>> 0, 0);
  return Buffer.concat([head, data, crc]);
};

/** A size × size RGB PNG of the dashboard icon. */
export function dashboardIconPng(size: number): Buffer {
  const blue = [0x0b, 0x63, 0xce];
  const white = [0xff, 0xff, 0xff];
  const rows: Buffer[] = [];
  const u = size / 16;
  for (let y = 0; y < size; y++) {
    const row = Buffer.alloc(1 + size * 3); // filter byte 0, then pixels
    for (let x = 0; x < size; x++) {
      const inBag = x >= 5 * u && x < 11 * u && y >= 6.5 * u && y < 11.5 * u;
      const dx = x - 8 * u;
      const dy = y - 6.5 * u;
      const r = Math.sqrt(dx * dx + dy * dy);
      const inHandle = dy < 0 && r >= 1.3 * u && r < 2 * u;
      row.set(inBag || inHandle ? white : blue, 1 + x * 3);
    }
    rows.push(row);
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr.set([8, 2, 0, 0, 0], 8); // 8-bit, truecolour, deflate, no filter method, no interlace
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(Buffer.concat(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
