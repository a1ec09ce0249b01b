/**
 * Savitzky–Golay filtering: fit a polynomial of degree `polyorder` by least squares to each
 * window of `window` samples and read the fitted value (deriv 0) or a derivative at the sample.
 *
 * Edges follow scipy's mode='interp': the first and last `window` samples are each fitted once and
 * the samples within half a window of an edge read that fit at their own position. We differ from
 * the reference server, which mirrors the signal at the edges: a mirrored signal has a first
 * derivative of exactly 0 at both ends, so an edge whose similarity rises (or falls) away from it
 * looks like a flat minimum and draws a split that no topic change caused.
 */
export interface SavgolOptions {
  window: number;
  polyorder: number;
}

/** Why a window/polyorder pair is unusable, or undefined when it is fine. */
export function savgolProblem({ window, polyorder }: SavgolOptions): string | undefined {
  if (!Number.isInteger(window) || window < 1 || window % 2 === 0) return `filter_window must be an odd whole number ≥ 1; got ${window}.`;
  if (!Number.isInteger(polyorder) || polyorder < 0) return `filter_polyorder must be a whole number ≥ 0; got ${polyorder}.`;
  if (polyorder >= window) return `filter_polyorder (${polyorder}) must be smaller than filter_window (${window}).`;
  return undefined;
}

/**
 * Weights c such that Σ c[j]·y[j] is the `deriv`-th derivative, at position `t` (relative to the
 * window's centre), of the least-squares polynomial through the window's samples.
 */
export function savgolWeights(window: number, polyorder: number, deriv: number, t: number): Float64Array {
  const half = (window - 1) / 2;
  const scale = Math.max(half, 1); // positions u_j = (j - half) / scale lie in [-1, 1]: well-conditioned normal equations
  const cols = polyorder + 1;
  const weights = new Float64Array(window);
  if (deriv > polyorder) return weights; // the derivative of a degree-p polynomial above order p is 0
  const u = (j: number) => (j - half) / scale;
  // Normal equations AᵀA with A[j][k] = u_j^k.
  const ata = Array.from({ length: cols }, (_, r) =>
    Array.from({ length: cols }, (_, c) => {
      let s = 0;
      for (let j = 0; j < window; j++) s += u(j) ** (r + c);
      return s;
    }),
  );
  // e[k] = d^deriv/dx^deriv of u^k at x = t, with u = x / scale: turns polynomial coefficients into the derivative.
  const e = Array.from({ length: cols }, (_, k) => (k < deriv ? 0 : (fallingFactorial(k, deriv) * (t / scale) ** (k - deriv)) / scale ** deriv));
  const z = solve(ata, e); // (AᵀA)⁻¹ is symmetric, so c = A (AᵀA)⁻¹ e
  for (let j = 0; j < window; j++) {
    let s = 0;
    for (let k = 0; k < cols; k++) s += z[k]! * u(j) ** k;
    weights[j] = s;
  }
  return weights;
}

/** The filtered signal (deriv 0) or its derivative, one value per sample. Needs y.length ≥ window. */
export function savgol(y: ArrayLike<number>, { window, polyorder }: SavgolOptions, deriv = 0): Float64Array {
  const n = y.length;
  const problem = savgolProblem({ window, polyorder });
  if (problem) throw new RangeError(problem);
  if (n < window) throw new RangeError(`savgol needs at least filter_window (${window}) samples; got ${n}.`);
  const half = (window - 1) / 2;
  const out = new Float64Array(n);
  const apply = (weights: Float64Array, from: number) => {
    let s = 0;
    for (let j = 0; j < window; j++) s += weights[j]! * y[from + j]!;
    return s;
  };
  const centre = savgolWeights(window, polyorder, deriv, 0);
  for (let i = half; i < n - half; i++) out[i] = apply(centre, i - half);
  for (let i = 0; i < half; i++) {
    out[i] = apply(savgolWeights(window, polyorder, deriv, i - half), 0);
    out[n - 1 - i] = apply(savgolWeights(window, polyorder, deriv, half - i), n - window);
  }
  return out;
}

function fallingFactorial(k: number, d: number): number {
  let f = 1;
  for (let i = 0; i < d; i++) f *= k - i;
  return f;
}

/** Solve M x = b by Gauss–Jordan elimination with partial pivoting (M is tiny and positive definite). */
function solve(m: number[][], b: number[]): number[] {
  const n = b.length;
  const a = m.map((row, i) => [...row, b[i]!]);
  for (let col = 0; col < n; col++) {
    let pivot = col;
    for (let r = col + 1; r < n; r++) if (Math.abs(a[r]![col]!) > Math.abs(a[pivot]![col]!)) pivot = r;
    [a[col], a[pivot]] = [a[pivot]!, a[col]!];
    const p = a[col]![col]!;
    for (let c = col; c <= n; c++) a[col]![c]! /= p;
    for (let r = 0; r < n; r++) {
      if (r === col) continue;
      const f = a[r]![col]!;
      if (f !== 0) for (let c = col; c <= n; c++) a[r]![c]! -= f * a[col]![c]!;
    }
  }
  return a.map((row) => row[n]!);
}
