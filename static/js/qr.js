// A small QR code encoder (ISO/IEC 18004): byte mode, error correction M (L when M does not fit), versions 1-6.

// Per version: [ec codewords per block, blocks, data codewords per block] for L and M (one block group each).
const BLOCKS = {
  L: [null, [7, 1, 19], [10, 1, 34], [15, 1, 55], [20, 1, 80], [26, 1, 108], [18, 2, 68]],
  M: [null, [10, 1, 16], [16, 1, 28], [26, 1, 44], [18, 2, 32], [24, 2, 43], [16, 4, 27]],
};
const FORMAT_BITS = { L: 1, M: 0 };
const ALIGN = [null, [], [6, 18], [6, 22], [6, 26], [6, 30], [6, 34]];
const MAX_VERSION = 6;

function gfMul(x, y) {
  let z = 0;
  for (let i = 7; i >= 0; i--) {
    z = (z << 1) ^ ((z >>> 7) * 0x11d);
    z ^= ((y >>> i) & 1) * x;
  }
  return z & 0xff;
}

function rsDivisor(degree) {
  const result = new Array(degree).fill(0);
  result[degree - 1] = 1;
  let root = 1;
  for (let i = 0; i < degree; i++) {
    for (let j = 0; j < result.length; j++) {
      result[j] = gfMul(result[j], root);
      if (j + 1 < result.length) result[j] ^= result[j + 1];
    }
    root = gfMul(root, 0x02);
  }
  return result;
}

function rsRemainder(data, divisor) {
  const result = new Array(divisor.length).fill(0);
  for (const b of data) {
    const factor = b ^ result.shift();
    result.push(0);
    for (let i = 0; i < result.length; i++) result[i] ^= gfMul(divisor[i], factor);
  }
  return result;
}

function utf8(text) {
  return Array.from(new TextEncoder().encode(text));
}

/** Pick the smallest version (M first, then L) whose data capacity holds ``length`` bytes. */
function chooseVersion(length) {
  for (const level of ['M', 'L']) {
    for (let v = 1; v <= MAX_VERSION; v++) {
      const [, blocks, dataPer] = BLOCKS[level][v];
      if (4 + 8 + 8 * length <= blocks * dataPer * 8) return { version: v, level };
    }
  }
  throw new Error('text too long for a version 6 QR code');
}

function dataCodewords(bytes, version, level) {
  const [, blocks, dataPer] = BLOCKS[level][version];
  const capacity = blocks * dataPer;
  const bits = [];
  const push = (value, count) => {
    for (let i = count - 1; i >= 0; i--) bits.push((value >>> i) & 1);
  };
  push(0b0100, 4);
  push(bytes.length, 8);
  for (const b of bytes) push(b, 8);
  push(0, Math.min(4, capacity * 8 - bits.length));
  while (bits.length % 8) bits.push(0);
  const words = [];
  for (let i = 0; i < bits.length; i += 8) words.push(parseInt(bits.slice(i, i + 8).join(''), 2));
  for (let pad = 0xec; words.length < capacity; pad ^= 0xec ^ 0x11) words.push(pad);
  return words;
}

function interleave(words, version, level) {
  const [ecLen, blocks, dataPer] = BLOCKS[level][version];
  const divisor = rsDivisor(ecLen);
  const dataBlocks = [];
  const ecBlocks = [];
  for (let b = 0; b < blocks; b++) {
    const block = words.slice(b * dataPer, (b + 1) * dataPer);
    dataBlocks.push(block);
    ecBlocks.push(rsRemainder(block, divisor));
  }
  const out = [];
  for (let i = 0; i < dataPer; i++) for (const block of dataBlocks) out.push(block[i]);
  for (let i = 0; i < ecLen; i++) for (const block of ecBlocks) out.push(block[i]);
  return out;
}

class Grid {
  constructor(version) {
    this.size = version * 4 + 17;
    this.dark = Array.from({ length: this.size }, () => new Array(this.size).fill(false));
    this.fixed = Array.from({ length: this.size }, () => new Array(this.size).fill(false));
  }

  set(x, y, dark) {
    this.dark[y][x] = dark;
    this.fixed[y][x] = true;
  }

  drawFunctionPatterns(version) {
    const n = this.size;
    for (let i = 0; i < n; i++) {
      this.set(6, i, i % 2 === 0);
      this.set(i, 6, i % 2 === 0);
    }
    for (const [cx, cy] of [[3, 3], [n - 4, 3], [3, n - 4]]) {
      for (let dy = -4; dy <= 4; dy++) {
        for (let dx = -4; dx <= 4; dx++) {
          const x = cx + dx;
          const y = cy + dy;
          if (x < 0 || y < 0 || x >= n || y >= n) continue;
          const dist = Math.max(Math.abs(dx), Math.abs(dy));
          this.set(x, y, dist !== 2 && dist !== 4);
        }
      }
    }
    const pos = ALIGN[version];
    for (const cy of pos) {
      for (const cx of pos) {
        const nearFinder =
          (cx === 6 && cy === 6) || (cx === 6 && cy === n - 7) || (cx === n - 7 && cy === 6);
        if (nearFinder) continue;
        for (let dy = -2; dy <= 2; dy++) {
          for (let dx = -2; dx <= 2; dx++) this.set(cx + dx, cy + dy, Math.max(Math.abs(dx), Math.abs(dy)) !== 1);
        }
      }
    }
    this.drawFormat('M', 0); // reserve the format areas; redrawn with the real mask later
  }

  drawFormat(level, mask) {
    const n = this.size;
    const data = (FORMAT_BITS[level] << 3) | mask;
    let rem = data;
    for (let i = 0; i < 10; i++) rem = (rem << 1) ^ ((rem >>> 9) * 0x537);
    const bits = ((data << 10) | rem) ^ 0x5412;
    const bit = (i) => ((bits >>> i) & 1) === 1;
    for (let i = 0; i <= 5; i++) this.set(8, i, bit(i));
    this.set(8, 7, bit(6));
    this.set(8, 8, bit(7));
    this.set(7, 8, bit(8));
    for (let i = 9; i < 15; i++) this.set(14 - i, 8, bit(i));
    for (let i = 0; i < 8; i++) this.set(n - 1 - i, 8, bit(i));
    for (let i = 8; i < 15; i++) this.set(8, n - 15 + i, bit(i));
    this.set(8, n - 8, true);
  }

  drawCodewords(codewords) {
    const n = this.size;
    let i = 0;
    for (let right = n - 1; right >= 1; right -= 2) {
      if (right === 6) right = 5;
      for (let vert = 0; vert < n; vert++) {
        for (let j = 0; j < 2; j++) {
          const x = right - j;
          const upward = ((right + 1) & 2) === 0;
          const y = upward ? n - 1 - vert : vert;
          if (this.fixed[y][x] || i >= codewords.length * 8) continue;
          this.dark[y][x] = ((codewords[i >>> 3] >>> (7 - (i & 7))) & 1) === 1;
          i++;
        }
      }
    }
  }

  applyMask(mask) {
    const tests = [
      (x, y) => (x + y) % 2 === 0,
      (x, y) => y % 2 === 0,
      (x) => x % 3 === 0,
      (x, y) => (x + y) % 3 === 0,
      (x, y) => (Math.floor(x / 3) + Math.floor(y / 2)) % 2 === 0,
      (x, y) => ((x * y) % 2) + ((x * y) % 3) === 0,
      (x, y) => (((x * y) % 2) + ((x * y) % 3)) % 2 === 0,
      (x, y) => (((x + y) % 2) + ((x * y) % 3)) % 2 === 0,
    ];
    const test = tests[mask];
    for (let y = 0; y < this.size; y++) {
      for (let x = 0; x < this.size; x++) {
        if (!this.fixed[y][x] && test(x, y)) this.dark[y][x] = !this.dark[y][x];
      }
    }
  }

  /** The standard's penalty score (lower is easier to scan). */
  penalty() {
    const n = this.size;
    const m = this.dark;
    let score = 0;
    const lines = [];
    for (let i = 0; i < n; i++) {
      lines.push(m[i]);
      lines.push(m.map((row) => row[i]));
    }
    const finderLike = [true, false, true, true, true, false, true];
    for (const line of lines) {
      let run = 1;
      for (let i = 1; i <= n; i++) {
        if (i < n && line[i] === line[i - 1]) {
          run++;
        } else {
          if (run >= 5) score += 3 + (run - 5);
          run = 1;
        }
      }
      for (let i = 0; i + 7 <= n; i++) {
        if (!finderLike.every((v, k) => line[i + k] === v)) continue;
        const lightBefore = [1, 2, 3, 4].every((k) => i - k < 0 || !line[i - k]);
        const lightAfter = [0, 1, 2, 3].every((k) => i + 7 + k >= n || !line[i + 7 + k]);
        if (lightBefore || lightAfter) score += 40;
      }
    }
    for (let y = 0; y + 1 < n; y++) {
      for (let x = 0; x + 1 < n; x++) {
        const c = m[y][x];
        if (c === m[y][x + 1] && c === m[y + 1][x] && c === m[y + 1][x + 1]) score += 3;
      }
    }
    const darkCount = m.reduce((sum, row) => sum + row.filter(Boolean).length, 0);
    score += Math.floor(Math.abs((darkCount * 100) / (n * n) - 50) / 5) * 10;
    return score;
  }
}

/**
 * Encode ``text`` (UTF-8 bytes). Returns {size, version, level, mask, modules}, modules[y][x] true = dark.
 * ``forceMask`` (0-7) skips the mask search (used by tests comparing with a reference encoder).
 */
export function encodeQR(text, forceMask = null) {
  const bytes = utf8(text);
  const { version, level } = chooseVersion(bytes.length);
  const codewords = interleave(dataCodewords(bytes, version, level), version, level);
  let best = null;
  const masks = forceMask === null ? [0, 1, 2, 3, 4, 5, 6, 7] : [forceMask];
  for (const mask of masks) {
    const grid = new Grid(version);
    grid.drawFunctionPatterns(version);
    grid.drawCodewords(codewords);
    grid.applyMask(mask);
    grid.drawFormat(level, mask);
    const score = masks.length === 1 ? 0 : grid.penalty();
    if (!best || score < best.score) best = { score, grid, mask };
  }
  return { size: best.grid.size, version, level, mask: best.mask, modules: best.grid.dark };
}

/** An <svg> drawing of the code with a 4-module quiet zone; one path, crisp at any size. */
export function qrSvg(text, label) {
  const { size, modules } = encodeQR(text);
  const quiet = 4;
  const full = size + quiet * 2;
  let d = '';
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) if (modules[y][x]) d += `M${x + quiet} ${y + quiet}h1v1h-1z`;
  }
  const ns = 'http://www.w3.org/2000/svg';
  const el = document.createElementNS(ns, 'svg');
  el.setAttribute('viewBox', `0 0 ${full} ${full}`);
  el.setAttribute('shape-rendering', 'crispEdges');
  el.setAttribute('role', 'img');
  el.setAttribute('class', 'qr');
  if (label) el.setAttribute('aria-label', label);
  const bg = document.createElementNS(ns, 'rect');
  bg.setAttribute('width', String(full));
  bg.setAttribute('height', String(full));
  bg.setAttribute('fill', '#fff');
  const path = document.createElementNS(ns, 'path');
  path.setAttribute('d', d);
  path.setAttribute('fill', '#000');
  el.append(bg, path);
  return el;
}
