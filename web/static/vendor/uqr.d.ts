// Types of what the app uses of uqr.js (uqr's own dist/index.d.ts, abridged).
export interface QrCodeGenerateOptions {
  /** Error correction level; default 'L'. */
  ecc?: 'L' | 'M' | 'Q' | 'H';
  /** Modules of quiet zone around the code; default 1. */
  border?: number;
}
export interface QrCodeGenerateResult {
  version: number;
  /** Width and height of data, in modules. */
  size: number;
  /** data[row][column]: true for a dark module. */
  data: boolean[][];
}
export function encode(data: string | ReadonlyArray<number>, options?: QrCodeGenerateOptions): QrCodeGenerateResult;
