import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { savgol, savgolProblem, savgolWeights } from './savgol.js';

const close = (a: number, b: number, eps = 1e-9) => Math.abs(a - b) <= eps * Math.max(1, Math.abs(a), Math.abs(b));

describe('Savitzky–Golay weights', () => {
  // Textbook convolution weights (Savitzky & Golay 1964, table I; Press et al., Numerical Recipes §14.9).
  const cases: [string, number, number, number, number[]][] = [
    ['smoothing, window 5, quadratic', 5, 2, 0, [-3, 12, 17, 12, -3].map((c) => c / 35)],
    ['smoothing, window 7, quadratic', 7, 2, 0, [-2, 3, 6, 7, 6, 3, -2].map((c) => c / 21)],
    ['first derivative, window 5, quadratic', 5, 2, 1, [-2, -1, 0, 1, 2].map((c) => c / 10)],
    ['second derivative, window 5, quadratic', 5, 2, 2, [2, -1, -2, -1, 2].map((c) => c / 7)],
    ['a cubic smooths like a quadratic at the centre', 5, 3, 0, [-3, 12, 17, 12, -3].map((c) => c / 35)],
    ['window 1 is the identity', 1, 0, 0, [1]],
    ['a derivative above the polynomial order is 0', 5, 1, 2, [0, 0, 0, 0, 0]],
  ];
  for (const [name, window, polyorder, deriv, expected] of cases) {
    test(name, () => {
      const w = savgolWeights(window, polyorder, deriv, 0);
      assert.equal(w.length, expected.length);
      w.forEach((c, j) => assert.ok(close(c, expected[j]!), `weight ${j}: ${c} ≠ ${expected[j]}`));
    });
  }
});

describe('savgol on polynomials (exact at every sample, edges included: interp mode)', () => {
  // A least-squares fit of degree ≥ the data's degree reproduces the data, so value and
  // derivatives must be exact everywhere; at the edges only a fit (not mirroring) achieves that.
  const poly = (coef: number[]) => ({
    f: (x: number) => coef.reduce((s, c, k) => s + c * x ** k, 0),
    d1: (x: number) => coef.reduce((s, c, k) => s + (k >= 1 ? k * c * x ** (k - 1) : 0), 0),
    d2: (x: number) => coef.reduce((s, c, k) => s + (k >= 2 ? k * (k - 1) * c * x ** (k - 2) : 0), 0),
  });
  test('property: any polynomial of degree ≤ polyorder', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 4 }).chain((half) =>
          fc.record({
            window: fc.constant(2 * half + 1),
            polyorder: fc.integer({ min: 0, max: 2 * half }),
            extra: fc.integer({ min: 0, max: 12 }),
            coef: fc.array(fc.double({ min: -2, max: 2, noNaN: true }), { minLength: 1, maxLength: 2 * half + 1 }),
          }),
        ),
        ({ window, polyorder, extra, coef }) => {
          const p = poly(coef.slice(0, polyorder + 1));
          const n = window + extra;
          const xs = Array.from({ length: n }, (_, i) => i / 4);
          const y = xs.map(p.f);
          // Samples are 1 apart in index units: derivatives scale by the spacing (0.25).
          const [s, d1, d2] = [0, 1, 2].map((d) => savgol(y, { window, polyorder }, d));
          xs.forEach((x, i) => {
            assert.ok(close(s![i]!, p.f(x), 1e-7), `value at ${i}`);
            assert.ok(close(d1![i]!, p.d1(x) / 4, 1e-7), `d1 at ${i}`);
            assert.ok(close(d2![i]!, p.d2(x) / 16, 1e-7), `d2 at ${i}`);
          });
        },
      ),
      { numRuns: 300 },
    );
  });

  test('smoothing shrinks noise around a flat line', () => {
    const y = Array.from({ length: 40 }, (_, i) => 0.5 + (i % 2 ? 0.1 : -0.1));
    const s = savgol(y, { window: 5, polyorder: 1 });
    for (let i = 2; i < 38; i++) assert.ok(Math.abs(s[i]! - 0.5) < Math.abs(y[i]! - 0.5));
  });
});

describe('parameter problems', () => {
  const cases: [string, number, number, RegExp | undefined][] = [
    ['the defaults', 5, 3, undefined],
    ['an even window', 4, 1, /odd/],
    ['a zero window', 0, 0, /odd/],
    ['polyorder equal to the window', 3, 3, /smaller than filter_window/],
    ['a negative polyorder', 5, -1, /≥ 0/],
  ];
  for (const [name, window, polyorder, problem] of cases) {
    test(name, () => {
      const found = savgolProblem({ window, polyorder });
      if (problem) assert.match(found ?? '', problem);
      else assert.equal(found, undefined);
    });
  }

  test('fewer samples than the window is refused', () => {
    assert.throws(() => savgol([1, 2, 3], { window: 5, polyorder: 2 }), /at least filter_window/);
  });
});
