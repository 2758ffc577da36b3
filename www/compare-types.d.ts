// The compare view's shapes (issue 21; docs/compare.md): its state, the worker's figures and the
// two builds' pairs. Split from types.d.ts, which re-exports them, so each file has one owner.

import type { Census, Problem, DecodedImage } from './types';
export type CompareMode = 'side' | 'swipe' | 'flicker' | 'diff';

/** One side of a comparison: a texture of the open files ('open') or of a build, and what of it. */
export interface CompareSide {
  set: 'open' | 'old' | 'new';
  index: number;
  /** The mip asked for; null: the one matching A (B only). */
  mip: number | null;
  slice: number;
  name: string;
  file: string;
}

/** What is compared: A and B, and the builds' pair they are (null: two textures of the open files). */
export interface CompareTarget {
  a: CompareSide;
  b: CompareSide;
  pair: number | null;
}

/** The figures of B against A (compare::Figures). */
export interface Figures {
  width: number;
  height: number;
  float: boolean;
  channels: { max_abs: number; mean_abs: number; mse: number; peak: number; psnr: number | null }[];
  max_abs: number;
  mean_abs: number;
  differing_texels: number;
  differing_share: number;
  bbox: { x: number; y: number; width: number; height: number } | null;
  nonfinite: number;
}

/** Which mips were compared (compare::Plan). */
export interface ComparePlan {
  a_mip: number;
  b_mip: number;
  scaled: boolean;
  notice: string | null;
}

/** A comparison the worker made: plan, figures and both surfaces (B at A's size). */
export interface CompareResult {
  plan: ComparePlan;
  figures: Figures;
  a: DecodedImage;
  b: DecodedImage;
}

/** A pair of two builds (web/compare.rs PairInfo, then its classification). */
export interface BuildPair {
  path: string;
  name: string;
  status: 'pending' | 'unchanged' | 'changed' | 'added' | 'removed';
  old: number | null;
  new: number | null;
  old_census: Census | null;
  new_census: Census | null;
  changes?: string[];
  error?: string | null;
}

/** A pair's classification (web/compare.rs Classified). */
export interface Classified {
  status: BuildPair['status'];
  changes: string[];
  error: string | null;
}

/** Two builds opened for comparing: their pairs (classified as the worker gets to them). */
export interface Builds {
  pairs: BuildPair[];
  problems: { old: Problem[]; new: Problem[] };
  /** The encrypted containers of each build that no key given opens (file names). */
  needsKey: { old: string[]; new: string[] };
  /** Pairs classified so far. */
  classified: number;
  /** What the user named each build (the folder, or the count of files). */
  oldName: string;
  newName: string;
}

export interface BuildsFilter {
  status: '' | BuildPair['status'];
  name: string;
}
